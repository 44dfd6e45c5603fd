import Foundation
import HeraldHTTPClient
import Testing

/// HTTP2Client against nghttpd, nghttp2's own server: bodies both ways across frame and window boundaries, static
/// files, trailers, a low stream limit, answers sent before the request body is read, and cleartext HTTP/2.
@Suite("HTTP2Client against nghttpd", .serialized)
struct HTTP2ClientNghttpdTests {
    @Test("request bodies of 0 B to 1 MB come back intact (echoed), trailers are dropped")
    func bodiesRoundTrip() async throws {
        let server = try NghttpdServer(arguments: ["--trailer=x-trailer: 1"])
        defer { server.stop() }
        let client = try HTTP2Client(configuration: .init(extraCAFile: server.pki.caFile))
        defer { client.shutdown() }

        for size in [1, 16_383, 16_384, 65_535, 65_536, 262_144, 1_000_000] {
            let body = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
            let response = try await client.execute(
                HTTPClientRequest(method: "POST", url: server.url + "/3/device/echo", body: body))
            #expect(response.status == 200, "\(size)")
            #expect(response.body == body, "\(size) bytes: \(response.body.count) came back")
            #expect(response.header("x-trailer") == nil, "trailers are not the response's headers")
        }
        #expect(client.connectionsOpened == 1)
    }

    @Test("static files: GET with its body, HEAD without, 404 for a missing one")
    func staticFiles() async throws {
        let server = try NghttpdServer()
        defer { server.stop() }
        let contents = Array(repeating: Array("herald ".utf8), count: 5000).flatMap { $0 }
        try Data(contents).write(to: URL(fileURLWithPath: server.htdocs + "/file.txt"))
        let client = try HTTP2Client(configuration: .init(extraCAFile: server.pki.caFile))
        defer { client.shutdown() }

        let get = try await client.execute(HTTPClientRequest(url: server.url + "/file.txt"))
        #expect(get.status == 200)
        #expect(get.body == contents)
        #expect(get.header("content-length") == String(contents.count))
        let head = try await client.execute(HTTPClientRequest(method: "HEAD", url: server.url + "/file.txt"))
        #expect(head.status == 200 && head.body.isEmpty)
        let missing = try await client.execute(HTTPClientRequest(url: server.url + "/missing.txt"))
        #expect(missing.status == 404)
    }

    @Test("a server allowing 8 streams gets at most 8 at once: 300 requests on one connection, none refused")
    func lowStreamLimitIsFollowed() async throws {
        let server = try NghttpdServer(arguments: ["--max-concurrent-streams=8"])
        defer { server.stop() }
        var configuration = HTTP2Client.Configuration(extraCAFile: server.pki.caFile, maxConnectionsPerHost: 1)
        configuration.maxTransparentResends = 0  // a refused stream would fail the test rather than be hidden
        let client = try HTTP2Client(configuration: configuration)
        defer { client.shutdown() }

        let requests = (0..<300).map { index in
            HTTPClientRequest(method: "POST", url: server.url + "/3/device/\(index)", body: Array("\(index)".utf8))
        }
        let results = await HTTP2ClientStandInTests.sendAll(client, requests)
        for (index, outcome) in results.enumerated() {
            let response = try outcome.result.get()
            #expect(response.status == 200 && response.body == Array("\(index)".utf8))
        }
        #expect(client.statistics.refusedStreamResends == 0)
        #expect(client.connectionsOpened == 1)
    }

    @Test("an answer sent before the request body is read (nghttpd --early-response) completes the request")
    func earlyResponse() async throws {
        let server = try NghttpdServer(arguments: ["--early-response"])
        defer { server.stop() }
        try Data("early".utf8).write(to: URL(fileURLWithPath: server.htdocs + "/early"))
        let client = try HTTP2Client(configuration: .init(extraCAFile: server.pki.caFile))
        defer { client.shutdown() }

        let response = try await client.execute(
            HTTPClientRequest(method: "POST", url: server.url + "/early", body: Array(repeating: 0x61, count: 2 << 20)))
        #expect(response.status == 200)
        let again = try await client.execute(HTTPClientRequest(url: server.url + "/early"))
        #expect(again.body == Array("early".utf8))
        #expect(client.statistics.streamsReset == 0)
    }

    @Test("cleartextHTTP2: an http:// origin spoken to in HTTP/2 from its first byte (nghttpd --no-tls)")
    func cleartextHTTP2() async throws {
        let server = try NghttpdServer(tls: false)
        defer { server.stop() }
        var configuration = HTTP2Client.Configuration()
        configuration.cleartextHTTP2 = true
        let client = try HTTP2Client(configuration: configuration)
        defer { client.shutdown() }

        // nghttpd without TLS takes only HTTP/2 (no HTTP/1.1 upgrade is sent): an answer means the client spoke it.
        for index in 0..<3 {
            let body = Array("cleartext \(index)".utf8)
            let response = try await client.execute(
                HTTPClientRequest(method: "POST", url: server.url + "/3/device/\(index)", body: body))
            #expect(response.status == 200 && response.body == body)
        }
        #expect(client.connectionsOpened == 1, "three requests as streams of one connection")
    }
}
