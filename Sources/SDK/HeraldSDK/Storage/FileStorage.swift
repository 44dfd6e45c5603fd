import Foundation

/// Storage as one file per key in a directory, each written atomically: to a temporary file in the same
/// directory, flushed to disk, then renamed over the old one (a rename within a file system is atomic).
///
/// On iOS, put the directory in Application Support and pass `availability` from
/// `UIApplication.isProtectedDataAvailable` (the Apple shell's `FileStorage.applicationSupport()` does both);
/// files are written with protection until first user authentication, so a pre-warmed app can read them after the
/// first unlock. Any read failure other than "no such file" is reported as `unavailable`, never as "nothing
/// stored".
///
/// ```swift
/// let storage = try FileStorage(directory: URL(fileURLWithPath: "/tmp/herald"))
/// try storage.write("install", Array("{}".utf8))
/// ```
public final class FileStorage: PersistentStorage, @unchecked Sendable {
    /// Where the files are.
    public let directory: URL
    private let availability: @Sendable () -> Bool
    private let lock = NSLock()

    /// Storage in `directory`, created if needed. `availability` says whether files can be read now (always, by
    /// default).
    public init(directory: URL, availability: @escaping @Sendable () -> Bool = { true }) throws(StorageError) {
        self.directory = directory
        self.availability = availability
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw StorageError(code: .failed, detail: "cannot create \(directory.lastPathComponent): \(error)")
        }
    }

    public func isAvailable() -> Bool { availability() }

    /// The file of `key`: letters, digits, `-` and `_` kept, anything else written as `_`.
    func fileURL(_ key: String) -> URL {
        let safe = String(
            key.unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "-", "_": return Character(scalar)
                default: return "_"
                }
            })
        return directory.appendingPathComponent(safe + ".json")
    }

    public func read(_ key: String) throws(StorageError) -> [UInt8]? {
        guard availability() else { throw StorageError(code: .unavailable, detail: key) }
        let url = fileURL(key)
        lock.lock()
        defer { lock.unlock() }
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            return [UInt8](try Data(contentsOf: url))
        } catch {
            // Exists but can't be read: protected, or the system is not ready. Never "nothing stored".
            throw StorageError(code: .unavailable, detail: "\(key): \(error.localizedDescription)")
        }
    }

    public func write(_ key: String, _ bytes: [UInt8]) throws(StorageError) {
        guard availability() else { throw StorageError(code: .unavailable, detail: key) }
        let url = fileURL(key)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        lock.lock()
        defer { lock.unlock() }
        do {
            try writeDurably(bytes, to: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw StorageError(code: .failed, detail: "\(key): \(error.localizedDescription)")
        }
        guard rename(temporary.path, url.path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw StorageError(code: .failed, detail: "\(key): rename failed (errno \(code))")
        }
    }

    /// Writes `bytes` to a new file and flushes it to the disk before closing it.
    private func writeDurably(_ bytes: [UInt8], to file: URL) throws {
        guard FileManager.default.createFile(atPath: file.path, contents: nil, attributes: Self.attributes) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.write(contentsOf: bytes)
        try handle.synchronize()
    }

    public func remove(_ key: String) throws(StorageError) {
        guard availability() else { throw StorageError(code: .unavailable, detail: key) }
        let url = fileURL(key)
        lock.lock()
        defer { lock.unlock() }
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            throw StorageError(code: .failed, detail: "\(key): \(error.localizedDescription)")
        }
    }

    /// New files' protection: readable after the first unlock (iOS), so background launches work.
    private static var attributes: [FileAttributeKey: Any]? {
        #if os(iOS) || os(watchOS) || os(tvOS) || os(visionOS)
            return [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication]
        #else
            return nil
        #endif
    }
}
