import Foundation
import HeraldHTTPServer
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Binding: a port in use is an error naming it, unless both sides asked to share it (SO_REUSEPORT).
@Suite("HTTP server: binding")
struct HTTPServerListenTests {
    private func port(of descriptor: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func aPortInUseIsAnErrorNamingHostAndPort() throws {
        let first = try HTTPServer.listen(host: "127.0.0.1", port: 0)
        defer { close(first) }
        let taken = port(of: first)
        #expect {
            try HTTPServer.listen(host: "127.0.0.1", port: taken)
        } throws: { error in
            "\(error)".contains("cannot listen on 127.0.0.1:\(taken): address already in use")
        }
        // Even when the second asks to share: the first did not.
        #expect(throws: HTTPServer.StartError.self) {
            try HTTPServer.listen(host: "127.0.0.1", port: taken, reusePort: true)
        }
    }

    @Test func twoThatAskToShareAPortMay() throws {
        let first = try HTTPServer.listen(host: "127.0.0.1", port: 0, reusePort: true)
        defer { close(first) }
        let second = try HTTPServer.listen(host: "127.0.0.1", port: port(of: first), reusePort: true)
        close(second)
    }

    @Test func anAddressNotOnThisMachineSaysSo() {
        #expect {
            try HTTPServer.listen(host: "203.0.113.7", port: 0)
        } throws: { error in
            "\(error)".hasPrefix("cannot listen on 203.0.113.7:0: ")
        }
    }
}
