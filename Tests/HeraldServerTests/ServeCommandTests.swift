import Foundation
import HeraldTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `herald serve` as a process, for what only the command does.
@Suite("herald serve")
struct ServeCommandTests {
    /// The `herald` binary built next to this test bundle.
    static var heraldBinary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("herald").path
    }

    @Test("a generated admin token is shown even when the start then fails, since the next run won't show it")
    func theGeneratedTokenIsShownBeforeTheStart() throws {
        let taken = try ListeningSocket()
        defer { taken.close() }
        let directory = try TemporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.heraldBinary)
        process.arguments = ["serve", "--port", String(taken.port), "--data-dir", directory.path]
        var environment = ProcessInfo.processInfo.environment
        environment["HERALD_ADMIN_TOKEN"] = nil
        environment["HERALD_PASSWORD_COST"] = "1024"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        #expect(process.terminationStatus == 1, "the port is taken: \(printed)")
        let kept = try String(contentsOfFile: directory.path + "/admin-token", encoding: .utf8)
        #expect(kept.hasPrefix("hadm_"))
        #expect(printed.contains("admin token (generated; kept in \(directory.path)/admin-token): \(kept)"))
    }
}

/// A TCP socket listening on 127.0.0.1 at a port of the kernel's choosing, to hold the port taken.
private struct ListeningSocket {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && listen(descriptor, 1) == 0
                    && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else { throw TestHTTPClient.Failure(description: "cannot listen: \(errno)") }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(descriptor) }
}
