import Foundation

/// A program a test runs beside the code it tests (nginx, nghttpd, openssl, python3). A test that needs one asks
/// for it with `require()`: without it the test fails, naming the program and how to install it — it never passes
/// (or is skipped) quietly because a machine lacks it. `scripts/install-dependencies --test` installs every one.
///
/// ```swift
/// static let nginx = TestTool("nginx", package: "nginx-light")
/// let path = try TestTool.nginx.require()
/// ```
public struct TestTool: Sendable {
    /// Why a test could not run: the program it needs is not installed.
    public struct Missing: Error, CustomStringConvertible {
        /// What is missing, and how to install it.
        public let description: String
    }

    /// The program's name.
    public let name: String
    /// The Debian package that installs it.
    public let package: String
    /// Where it is, if installed.
    public let path: String?

    /// The program `name`, looked for in the usual directories and then on `PATH`.
    public init(_ name: String, package: String) {
        self.name = name
        self.package = package
        let directories =
            ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin", "/opt/homebrew/bin"]
            + (ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map(String.init) ?? [])
        path = directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The program's path, or the error that fails the test, saying what is missing and how to install it.
    public func require() throws -> String {
        guard let path else {
            throw Missing(
                description:
                    "\(name) is not installed, and this test needs it: scripts/install-dependencies --test installs it "
                    + "(Debian package \(package))")
        }
        return path
    }
}
