import Foundation
import HeraldTesting

/// Runs the `openssl` command-line tool, as an independent implementation to check HeraldCrypto against.
enum OpenSSLCLI {
    /// The tool: a test that runs it fails, saying so, when it is not installed.
    static let tool = TestTool("openssl", package: "openssl")

    /// Runs `openssl arguments…` with `input` on stdin; returns the exit status and stdout.
    static func run(_ arguments: [String], input: [UInt8] = []) throws -> (status: Int32, output: [UInt8]) {
        let process = try ChildProcess(try tool.require(), arguments, input: .pipe, output: .pipe, errors: .null)
        try process.input!.write(contentsOf: Data(input))
        try process.input!.close()
        let output = process.output!.readDataToEndOfFile()
        return (process.wait(), Array(output))
    }

    /// A fresh temporary directory, removed after `body`.
    static func withTemporaryDirectory<R>(_ body: (URL) throws -> R) throws -> R {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("herald-crypto-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }
}
