import Foundation
import HeraldFuzzTargets
import HeraldHTTPClient
import HeraldTesting
import Testing

/// Responses no caller expects, from a server that answers with canned bytes: a status outside 100–599 fails the
/// request as a broken connection would (worth retrying, as RFC 9110 asks of a 5xx) rather than reach the caller.
/// Found by Tests/Fuzz/FuzzHTTP2Response: nghttp2 lets any three digits through, `088` included.
@Suite("HTTP client: malformed responses", .serialized)
struct HTTPClientMalformedResponseTests {
    @Test("an HTTP/2 :status outside 100-599 fails the request; a valid one answers")
    func invalidHTTP2Status() async throws {
        let server = CannedResponseServer(.http2)
        defer { server.stop() }
        var configuration = HTTP2Client.Configuration(maxConnectionsPerHost: 1)
        configuration.cleartextHTTP2 = true
        configuration.minConnectionsPerHost = 0
        let client = try HTTP2Client(configuration: configuration)
        defer { client.shutdown() }
        let request = HTTPClientRequest(
            method: "POST", url: "http://127.0.0.1:\(server.port)/3/device/x", body: Array("{}".utf8))

        for status in ["088", "099", "600", "999"] {
            server.reply.withLock { $0 = Self.http2Answer(status: status) }
            let error = await #expect(throws: HTTPClientError.self, "\(status)") { try await client.execute(request) }
            #expect(error?.code == .connectionReset)
            #expect(error?.message.contains("invalid :status") == true, "\(String(describing: error))")
            await Self.waitUntilClosed(server)
        }
        server.reply.withLock { $0 = Self.http2Answer(status: "204") }
        #expect(try await client.execute(request).status == 204)
    }

    @Test("an HTTP/1.1 status line with a code outside 100-599 fails the request; a valid one answers")
    func invalidHTTP1Status() async throws {
        let server = CannedResponseServer(.http1)
        defer { server.stop() }
        let client = try HTTP2Client(configuration: .init(maxConnectionsPerHost: 1))
        defer { client.shutdown() }
        let request = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/")

        for status in ["088", "600"] {
            server.reply.withLock { $0 = Array("HTTP/1.1 \(status) Odd\r\nContent-Length: 0\r\n\r\n".utf8) }
            let error = await #expect(throws: HTTPClientError.self, "\(status)") { try await client.execute(request) }
            #expect(error?.code == .connectionReset)
            #expect(error?.message.contains("status code \(Int(status)!)") == true, "\(String(describing: error))")
            await Self.waitUntilClosed(server)
        }
        server.reply.withLock { $0 = Array("HTTP/1.1 204 No Content\r\n\r\n".utf8) }
        #expect(try await client.execute(request).status == 204)
    }

    /// A SETTINGS acknowledgement, then a response to stream 1 that is only its `:status` (a literal, so that any
    /// three characters can be sent), ending the stream.
    static func http2Answer(status: String) -> [UInt8] {
        let block = [0x08, 0x03] + Array(status.utf8)  // literal without indexing, name :status (static index 8)
        let settingsAck: [UInt8] = [0, 0, 0, 0x04, 0x01, 0, 0, 0, 0]
        let headers: [UInt8] = [0, 0, UInt8(block.count), 0x01, 0x05, 0, 0, 0, 1] + block
        return settingsAck + headers
    }

    /// Waits until the server has closed its connection, so the next request opens a new one.
    static func waitUntilClosed(_ server: CannedResponseServer) async {
        await Poll.eventually(timeout: .seconds(5)) { !server.busy.load(ordering: .acquiring) }
    }
}
