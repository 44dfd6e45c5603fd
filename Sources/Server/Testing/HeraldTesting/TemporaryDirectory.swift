import Foundation

/// A fresh directory under the system's temporary directory, removed when released.
public final class TemporaryDirectory: @unchecked Sendable {
    /// Its path.
    public let path: String

    /// Creates a directory named after `prefix`.
    public init(prefix: String = "herald-test") throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The path of `name` inside it.
    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
