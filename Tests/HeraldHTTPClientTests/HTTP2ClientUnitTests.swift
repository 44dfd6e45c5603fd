import CNghttp2
import Foundation
import Testing

@testable import HeraldHTTPClient

/// HTTP2Client pieces that need no socket: URL reading, header parsing, HTTP/2 header lists, validation, trust.
@Suite("HTTP2Client units")
struct HTTP2ClientUnitTests {
    @Test("header lines parse to lowercased names and trimmed values, folded lines joined")
    func parsesHeaderLines() {
        let raw = Array("Content-Type: application/json\r\napns-id:  abc \r\nX-Folded: one\r\n\ttwo\r\nbogus\r\n".utf8)
        let headers = ResponseHeaderParser.parse(raw)
        #expect(headers.map(\.name) == ["content-type", "apns-id", "x-folded"])
        #expect(headers.map(\.value) == ["application/json", "abc", "one two"])
        #expect(ResponseHeaderParser.parse(Array("a:\nb: 2".utf8)).map(\.value) == ["", "2"])
    }

    @Test("URLs are read in place: scheme, host, port and the path sent")
    func readsTargets() throws {
        func parts(_ url: String) -> (tls: Bool, host: String, port: Int, path: String)? {
            guard let target = RequestTarget.parse(url) else { return nil }
            let bytes = Array(url.utf8)
            let host = String(decoding: bytes[target.hostStart..<target.hostEnd], as: UTF8.self)
            let path = String(decoding: bytes[target.pathStart..<target.pathEnd], as: UTF8.self)
            return (target.isTLS, host, target.port, path)
        }
        let apns = try #require(parts("https://api.push.apple.com/3/device/abc?x=1#frag"))
        #expect(apns.tls && apns.host == "api.push.apple.com" && apns.port == 443 && apns.path == "/3/device/abc?x=1")
        let local = try #require(parts("HTTP://127.0.0.1:8080"))
        #expect(!local.tls && local.host == "127.0.0.1" && local.port == 8080 && local.path == "")
        let ipv6 = try #require(parts("https://[::1]:9443/token"))
        #expect(ipv6.host == "::1" && ipv6.port == 9443 && ipv6.path == "/token")
        #expect(parts("https://h?q")?.path == "?q")
        for bad in [
            "ftp://h/", "https://", "https:///x", "https://user@h/", "https://h:0/", "https://h:70000/", "https://h:x/",
            "https://[::1/", "//h/", "h/x",
        ] {
            #expect(RequestTarget.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("the HTTP/2 header list: pseudo-headers, lowercased names, no connection headers, content-length")
    func buildsHTTP2Headers() throws {
        let request = HTTPClientRequest(
            method: "POST", url: "https://API.example.com:8443/3/device/abc",
            headers: [
                ("Authorization", "bearer x.y.z"), ("apns-id", "1-2"), ("Connection", "keep-alive"), ("Host", "other"),
                ("Content-Length", "999"), ("X-Mixed", "Value"), ("apns-expiration", "1767225600"),
                ("apns-collapse-id", "sale"),
            ], body: Array("{}".utf8))
        let target = try #require(RequestTarget.parse(request.url))
        let pending = PendingRequest(request: request, target: target, deadline: .max, cancellation: nil) { _ in }
        var origin = Origin(isTLS: true, host: "api.example.com", port: 8443)
        #expect(origin.authority == "api.example.com:8443")
        let text = ByteBuffer()
        var list: [nghttp2_nv] = []
        var named = HTTP2RequestHeaders.NamedFields()
        HTTP2RequestHeaders.build(pending, origin: origin, text: text, into: &list, named: &named)
        let neverIndexed = UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
        let firstFlags = list[5].flags
        #expect(named == [.apnsID, .apnsExpiration, .apnsCollapseID])
        #expect(
            [5, 7, 8].map { list[$0].flags } == [0, 0, 0],
            "a connection's first apns-id, apns-expiration and apns-collapse-id are indexed, naming them for the rest")
        HTTP2RequestHeaders.build(pending, origin: origin, text: text, into: &list, named: &named)
        let pairs = list.map { entry in
            (
                String(decoding: UnsafeBufferPointer(start: entry.name, count: entry.namelen), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(start: entry.value, count: entry.valuelen), as: UTF8.self),
                entry.flags
            )
        }
        #expect(
            pairs.map(\.0) == [
                ":method", ":scheme", ":authority", ":path", "authorization", "apns-id", "x-mixed", "apns-expiration",
                "apns-collapse-id", "content-length",
            ])
        #expect(
            pairs.map(\.1) == [
                "POST", "https", "api.example.com:8443", "/3/device/abc", "bearer x.y.z", "1-2", "Value", "1767225600",
                "sale", "2",
            ])
        #expect(
            pairs.filter { $0.2 == neverIndexed }.map(\.0) == [
                ":path", "authorization", "apns-id", "apns-expiration", "apns-collapse-id",
            ])
        // What nghttp2 makes of the two apns-ids with the flags built above: after the indexed one, the next is a
        // literal never indexed whose name is the table's newest entry (62: 0x1F and 62 - 15), not the name spelled
        // out again (0x10, then its length).
        var deflater: OpaquePointer?
        #expect(nghttp2_hd_deflate_new(&deflater, 4096) == 0)
        defer { nghttp2_hd_deflate_del(deflater) }
        func encoded(_ value: String, flags: UInt8) -> [UInt8] {
            var name = Array("apns-id".utf8)
            var bytes = Array(value.utf8)
            var output = [UInt8](repeating: 0, count: 256)
            let count = name.withUnsafeMutableBufferPointer { name in
                bytes.withUnsafeMutableBufferPointer { value in
                    var field = nghttp2_nv(
                        name: name.baseAddress, value: value.baseAddress, namelen: name.count, valuelen: value.count,
                        flags: flags)
                    return nghttp2_hd_deflate_hd(deflater, &output, output.count, &field, 1)
                }
            }
            return Array(output.prefix(max(0, count)))
        }
        #expect(encoded("1-2", flags: firstFlags).first == 0x40, "indexed, new name")
        #expect(encoded("3-4", flags: pairs[5].2).prefix(2) == [0x1F, 47])

        origin = Origin(isTLS: false, host: "::1", port: 80)
        #expect(origin.authority == "[::1]")
        let get = HTTPClientRequest(url: "http://[::1]?q=1")
        let getPending = PendingRequest(
            request: get, target: try #require(RequestTarget.parse(get.url)), deadline: .max, cancellation: nil
        ) { _ in }
        HTTP2RequestHeaders.build(getPending, origin: origin, text: text, into: &list, named: &named)
        let path = list[3]
        #expect(
            String(decoding: UnsafeBufferPointer(start: path.value, count: path.valuelen), as: UTF8.self) == "/?q=1")
        #expect(list.count == 4, "a GET without body has no content-length")
    }

    @Test("requests with header injection, non-token names or unusable URLs are refused")
    func validatesRequests() {
        func code(_ request: HTTPClientRequest) -> HTTPClientError.Code? { request.validationError()?.code }
        #expect(code(HTTPClientRequest(url: "ftp://h/")) == .invalidRequest)
        #expect(code(HTTPClientRequest(url: "https://user:pw@h/")) == .invalidRequest)
        #expect(code(HTTPClientRequest(url: "https://h/", headers: [("a", "b")])) == nil)
        #expect(code(HTTPClientRequest(url: "https://h/", headers: [("a", "b\nc")])) == .invalidRequest)
        #expect(code(HTTPClientRequest(url: "https://h/", headers: [("a", "b\0")])) == .invalidRequest)
        #expect(code(HTTPClientRequest(url: "https://h/", headers: [("a:b", "c")])) == .invalidRequest)
        #expect(code(HTTPClientRequest(method: "", url: "https://h/")) == .invalidRequest)
        #expect(code(HTTPClientRequest(url: "https://h/a b")) == .invalidRequest)
    }

    @Test("a header value's CR, LF or NUL is found at every offset, eight bytes at a time or in the tail")
    func lineBreaksFoundAtEveryOffset() {
        // Bytes next to the forbidden ones (and with the high bit set) that a word-at-a-time test could mistake.
        let harmless: [UInt8] = [0x01, 0x09, 0x0B, 0x0C, 0x0E, 0x20, 0x7F, 0x80, 0x8A, 0x8D, 0xFF]
        for length in 0...24 {
            for filler in harmless {
                let clean = [UInt8](repeating: filler, count: length)
                #expect(!clean.withUnsafeBufferPointer(HTTPClientRequest.holdsLineBreakOrNUL), "\(length) × \(filler)")
                for offset in 0..<length {
                    for forbidden: UInt8 in [0x0D, 0x0A, 0x00] {
                        var bytes = clean
                        bytes[offset] = forbidden
                        #expect(
                            bytes.withUnsafeBufferPointer(HTTPClientRequest.holdsLineBreakOrNUL),
                            "\(forbidden) at \(offset) of \(length) among \(filler)")
                    }
                }
            }
        }
        let longValue = "bearer " + String(repeating: "x", count: 200) + "\r"
        #expect(HTTPClientRequest(url: "https://h/", headers: [("a", longValue)]).validationError() != nil)
    }

    @Test("header lookup is case-insensitive and returns the first match")
    func headerLookup() {
        let response = HTTPClientResponse(status: 200, headers: [("apns-id", "1"), ("apns-id", "2")])
        #expect(response.header("APNS-ID") == "1")
        #expect(response.header("apns") == nil)
    }

    @Test("response header fields kept as received bytes: every field back in order, empty, long and non-ASCII ones")
    func headerFieldStorage() {
        let long = String(repeating: "v", count: 70_000)  // longer than two bytes of length can say
        let fields = [("Server", "nghttpd"), ("x-empty", ""), ("", "no name"), ("x-long", long), ("x-ütf", "é ✓")]
        var response = HTTPClientResponse(status: 200, headers: fields, body: [1])
        #expect(response.headers.map(\.name) == fields.map(\.0))
        #expect(response.headers.map(\.value) == fields.map(\.1))
        #expect(response.header("SERVER") == "nghttpd" && response.header("x-empty") == "")
        #expect(
            response.header("x-long") == long && response.header("X-ÜTF") == nil && response.header("x-ütf") == "é ✓")
        #expect(response.header("x-lon") == nil && response.header("x-longer") == nil)
        response.headers = [("retry-after", "3")]
        #expect(response.header("Retry-After") == "3" && response.headers.count == 1 && response.body == [1])
        #expect(HTTPClientResponse(status: 204).headers.isEmpty && HTTPClientResponse(status: 204).header("a") == nil)
    }

    @Test("the trust store: an unreadable or certificate-free extra CA file is refused at once")
    func trustStoreChecksTheExtraFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        _ = try TLSContext(systemCAFile: nil, extraCAFile: nil)
        #expect(throws: HTTPClientError.self) {
            _ = try TLSContext(systemCAFile: nil, extraCAFile: directory.path + "/missing.pem")
        }
        try "no certificate".write(toFile: directory.path + "/empty.pem", atomically: true, encoding: .utf8)
        let error = #expect(throws: HTTPClientError.self) {
            _ = try TLSContext(systemCAFile: nil, extraCAFile: directory.path + "/empty.pem")
        }
        #expect(error?.code == .tls)
        let pki = try TestPKI(in: directory.path, name: "unit")
        _ = try TLSContext(systemCAFile: pki.caFile, extraCAFile: pki.caFile)
    }
}
