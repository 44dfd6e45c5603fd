import Foundation
import HeraldHTTPServer
import HeraldModel
import HeraldObservability
import HeraldTesting
import Synchronization
import Testing

/// The server's limits and request ids.
extension HTTPServerTests {
    // MARK: - Limits

    @Test func aDeclaredBodyOverOneMebibyteIs413() throws {
        let server = try TestServer()
        let client = server.client()
        // Only the head is sent: the server must answer without waiting for the body.
        try client.send(
            raw: Array("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: \((1 << 20) + 1)\r\n\r\n".utf8))
        let response = try client.readResponse(method: "POST")
        #expect(response.status == 413)
        #expect(response.isJSON)
        #expect(response.errorFields?.keys.sorted() == ["base"], "\(response)")
        #expect(response.header("x-request-id")?.isEmpty == false)
        #expect(try server.get("/x").status == 200)
    }

    @Test func aBodyOfExactlyOneMebibyteIsAccepted() throws {
        let server = try TestServer()
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
        let response = try server.client().request("POST", "/echo", body: body)
        #expect(response.status == 200, "\(response.status)")
        #expect(response.value?["length"] == .int(1 << 20))
    }

    @Test func aChunkedBodyOverOneMebibyteIs413() throws {
        let server = try TestServer()
        let client = server.client()
        var bytes = Array("POST /echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        let chunk = [UInt8](repeating: UInt8(ascii: "b"), count: 64 * 1024)
        for _ in 0..<17 {  // 1088 KiB
            bytes += Array("10000\r\n".utf8) + chunk + Array("\r\n".utf8)
        }
        bytes += Array("0\r\n\r\n".utf8)
        try client.send(raw: bytes)
        let response = try client.readResponse(method: "POST")
        #expect(response.status == 413)
        #expect(response.isJSON)
        #expect(response.errorFields?.keys.sorted() == ["base"], "\(response)")
        #expect(try server.get("/x").status == 200)
    }

    @Test func aSmallChunkedBodyIsReassembled() throws {
        let server = try TestServer()
        let client = server.client()
        let raw =
            "POST /echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "4\r\n{\"a\"\r\n" + "6\r\n:\"hi\"}\r\n" + "0\r\n\r\n"
        try client.send(raw: Array(raw.utf8))
        let response = try client.readResponse(method: "POST")
        #expect(response.status == 200)
        #expect(response.value?["body"] == #"{"a":"hi"}"#)
        #expect(response.value?["json"] == ["a": "hi"])
    }

    @Test func moreThanAHundredHeadersIs431() throws {
        let server = try TestServer()
        // Host plus 99 more: 100 headers, the most allowed.
        let allowed = (1...99).map { "X-Header-\($0): \($0)" }
        let ok = server.client()
        try ok.send(raw: request("GET", "/x", headers: allowed))
        #expect(try ok.readResponse().status == 200)

        let client = server.client()
        try client.send(raw: request("GET", "/x", headers: allowed + ["X-Header-100: 100"]))
        let response = try client.readResponse()
        #expect(response.status == 431)
        #expect(response.isJSON)
        #expect(response.errorFields?.keys.sorted() == ["base"], "\(response)")
        #expect(try server.get("/x").status == 200)
    }

    @Test func anHTTP11RequestWithoutHostIs400() throws {
        let server = try TestServer()
        let client = server.client()
        try client.send(raw: Array("GET /x HTTP/1.1\r\nAccept: */*\r\n\r\n".utf8))
        let response = try client.readResponse()
        #expect(response.status == 400)  // RFC 9112 §3.2
        #expect(response.isJSON)
        #expect(response.errorFields?.keys.sorted() == ["base"], "\(response)")
        // A later 1.x is served as 1.1, so it needs one too.
        let later = server.client()
        try later.send(raw: Array("GET /x HTTP/1.2\r\n\r\n".utf8))
        #expect(try later.readResponse().status == 400)
        // HTTP/1.0 had no Host.
        let old = server.client()
        try old.send(raw: Array("GET /x HTTP/1.0\r\n\r\n".utf8))
        #expect(try old.readResponse().status == 200)
    }

    @Test("a body whose end is in doubt is refused before it is read, and the connection closed")
    func ambiguousFramingIsRefused() throws {
        let server = try TestServer()
        // Two lengths: a proxy in front that takes the other would see the "body" as a second request.
        for (head, status) in [
            // (A list in one field, `Content-Length: 0, 37`, libmicrohttpd refuses itself, in HTML.)
            ("Content-Length: 0\r\nContent-Length: 37", 400),
            ("Content-Length: 5\r\nTransfer-Encoding: chunked", 400), ("Content-Length: 5\r\nTransfer-Encoding: ", 400),
            ("Transfer-Encoding: gzip", 501), ("Transfer-Encoding: gzip, chunked", 501),
            // What libmicrohttpd would not read as chunked, and would read until the connection closes.
            ("Transfer-Encoding: ", 400), ("Transfer-Encoding: chunked, chunked", 400),
            ("Transfer-Encoding: , chunked", 400),
            ("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked", 400),
        ] {
            let client = server.client()
            try client.send(
                raw: Array(
                    "POST /echo HTTP/1.1\r\nHost: localhost\r\n\(head)\r\n\r\nGET /x HTTP/1.1\r\nHost: localhost\r\n\r\n"
                        .utf8))
            let response = try client.readResponse(method: "POST")
            #expect(response.status == status, "\(head): \(response)")
            #expect(response.isJSON, "\(head)")
            #expect(response.header("connection") == "close", "\(head)")
            #expect(throws: (any Error).self, "\(head): nothing after it is served") { try client.readResponse() }
        }
        // The same length twice is one length.
        let client = server.client()
        try client.send(
            raw: Array(
                "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}".utf8))
        #expect(try client.readResponse(method: "POST").status == 200)
    }

    @Test func headersOverTheLimitAre431() throws {
        let server = try TestServer()
        // Over 32 KiB of header fields, within the connection's memory: Herald's own JSON 431.
        let big = server.client()
        try big.send(raw: request("GET", "/x", headers: ["X-Big: " + String(repeating: "a", count: 40_000)]))
        let response = try big.readResponse()
        #expect(response.status == 431)
        #expect(response.isJSON)
        #expect(response.errorFields?["base"]?.first?.contains("at most 32768") == true, "\(response)")
        // A head that does not fit the connection's memory at all: libmicrohttpd answers it itself (its own HTML
        // body); the server must survive it.
        let huge = server.client()
        try huge.send(raw: request("GET", "/x", headers: ["X-Big: " + String(repeating: "a", count: 100_000)]))
        #expect(try huge.readResponse().status == 431)
        #expect(try server.get("/x").status == 200)
    }

    @Test(arguments: ["99999999999999999999", "18446744073709551616"])
    func anAbsurdContentLengthIsRefused(_ length: String) throws {
        let server = try TestServer()
        let client = server.client()
        try client.send(raw: Array("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(length)\r\n\r\n".utf8))
        let response = try client.readResponse(method: "POST")
        #expect(response.status == 413 || response.status == 400, "\(response.status)")
        #expect(try server.get("/x").status == 200)
    }

    // MARK: - Request ids

    @Test func everyAnswerCarriesARequestID() throws {
        let server = try TestServer()
        let first = try server.get("/x")
        let second = try server.get("/x")
        let firstID = try #require(first.header("x-request-id"))
        let secondID = try #require(second.header("x-request-id"))
        #expect(!firstID.isEmpty)
        #expect(firstID != secondID)
        // The handler sees the same id it is answered with.
        let echoed = try server.get("/request-id")
        #expect(echoed.value?["id"] == .string(echoed.header("x-request-id") ?? "?"))
        // Error answers have one too.
        #expect(try server.get("/nowhere").header("x-request-id")?.isEmpty == false)
        #expect(try server.get("/fail").header("x-request-id")?.isEmpty == false)
    }

    @Test(arguments: ["abc-123_X.y", "0f8fad5b-d9cb-469f-a165-70867728950e", String(repeating: "a", count: 64)])
    func aSaneClientRequestIDIsEchoed(_ id: String) throws {
        let server = try TestServer()
        let response = try server.get("/request-id", headers: [("X-Request-ID", id)])
        #expect(response.header("x-request-id") == id)
        #expect(response.value?["id"] == .string(id))
    }

    @Test(arguments: [
        "has space", String(repeating: "a", count: 65), "<script>", "semi;colon", "quote\"d", "new%0Aline", "ümlaut",
        "a/b",
    ])
    func anInsaneClientRequestIDIsReplaced(_ id: String) throws {
        let server = try TestServer()
        let response = try server.get("/request-id", headers: [("X-Request-ID", id)])
        let answered = try #require(response.header("x-request-id"))
        #expect(answered != id)
        #expect(!answered.isEmpty)
        #expect(answered.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
        #expect(response.value?["id"] == .string(answered))
    }

    @Test(.bug(id: "apitests-9", "the server's own 413 and 431 answers ignore the client's x-request-id"))
    func aSaneClientRequestIDIsEchoedOnLimitAnswers() throws {
        let server = try TestServer()
        let client = server.client()
        try client.send(
            raw: Array(
                "POST /echo HTTP/1.1\r\nHost: localhost\r\nX-Request-ID: upload-7\r\nContent-Length: 2000000\r\n\r\n"
                    .utf8))
        let tooLarge = try client.readResponse(method: "POST")
        #expect(tooLarge.status == 413)
        let other = server.client()
        try other.send(
            raw: request("GET", "/x", headers: ["X-Request-ID: many-headers-7"] + (1...100).map { "X-H\($0): v" }))
        let tooMany = try other.readResponse()
        #expect(tooMany.status == 431)
        #expect(tooLarge.header("x-request-id") == "upload-7")
        #expect(tooMany.header("x-request-id") == "many-headers-7")
    }
}
