import CCurl
import Foundation
import Testing

@testable import HeraldHTTP

/// HTTP2Client pieces that need no socket: header parsing, header lists, error mapping, validation.
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

    @Test("status lines are recognised so interim responses' headers are dropped")
    func recognisesStatusLines() {
        for line in ["HTTP/1.1 100 Continue\r\n", "HTTP/2 200 \r\n"] {
            Array(line.utf8).withUnsafeBytes { #expect(ResponseHeaderParser.isStatusLine($0)) }
        }
        Array("http-ish: 1\r\n".utf8).withUnsafeBytes { #expect(!ResponseHeaderParser.isStatusLine($0)) }
    }

    @Test("the request header list carries the caller's lines and turns off curl's defaults")
    func buildsHeaderList() {
        let list = CurlHeaderList()
        func lines(_ headers: [(name: String, value: String)], hasBody: Bool) -> [String] {
            var node: UnsafeMutablePointer<curl_slist>? = list.build(headers, hasBody: hasBody)
            var lines: [String] = []
            while let current = node {
                lines.append(String(cString: current.pointee.data))
                node = current.pointee.next
            }
            return lines
        }
        #expect(
            lines([("apns-topic", "com.example"), ("x-empty", "")], hasBody: true)
                == ["apns-topic: com.example", "x-empty;", "Expect:", "Accept:", "Content-Type:"])
        #expect(
            lines([("Content-Type", "application/json"), ("ACCEPT", "*/*")], hasBody: true)
                == ["Content-Type: application/json", "ACCEPT: */*", "Expect:"])
        #expect(lines([], hasBody: false) == ["Expect:", "Accept:"])
        let long = String(repeating: "x", count: 5000)
        #expect(lines(Array(repeating: ("authorization", long), count: 40), hasBody: false).count == 42)
    }

    @Test("curl codes map to retry-relevant error codes")
    func mapsCurlCodes() {
        let cases: [(CURLcode, HTTPClientError.Code)] = [
            (CURLE_OPERATION_TIMEDOUT, .timeout),
            (CURLE_COULDNT_CONNECT, .connectionFailed),
            (CURLE_COULDNT_RESOLVE_HOST, .connectionFailed),
            (CURLE_PEER_FAILED_VERIFICATION, .tls),
            (CURLE_SSL_CONNECT_ERROR, .tls),
            (CURLE_SEND_ERROR, .connectionReset),
            (CURLE_RECV_ERROR, .connectionReset),
            (CURLE_HTTP2, .connectionReset),
            (CURLE_HTTP2_STREAM, .connectionReset),
            (CURLE_GOT_NOTHING, .connectionReset),
            (CURLE_PARTIAL_FILE, .connectionReset),
            (CURLE_UNSUPPORTED_PROTOCOL, .invalidRequest),
            (CURLE_OUT_OF_MEMORY, .other),
        ]
        for (curlCode, code) in cases {
            #expect(HTTPClientError.Code(curlCode: curlCode) == code, "\(curlCode)")
        }
        let error = HTTPClientError(curlCode: CURLE_COULDNT_CONNECT, detail: nil)
        #expect(error.description.hasPrefix("HTTPClientError.connectionFailed: "))
    }

    @Test("requests with header injection or non-token names are refused")
    func validatesRequests() {
        func code(_ request: HTTPClientRequest) -> HTTPClientError.Code? { request.validationError()?.code }
        #expect(code(HTTPClientRequest(url: "https://h/", headers: [("a", "b")])) == nil)
        #expect(code(HTTPClientRequest(url: "https://h/", headers: [("a", "b\nc")])) == .invalidRequest)
        #expect(code(HTTPClientRequest(url: "https://h/", headers: [("a", "b\0")])) == .invalidRequest)
        #expect(code(HTTPClientRequest(url: "https://h/", headers: [("a:b", "c")])) == .invalidRequest)
        #expect(code(HTTPClientRequest(method: "", url: "https://h/")) == .invalidRequest)
        #expect(code(HTTPClientRequest(url: "https://h/a b")) == .invalidRequest)
    }

    @Test("header lookup is case-insensitive and returns the first match")
    func headerLookup() {
        let response = HTTPClientResponse(status: 200, headers: [("apns-id", "1"), ("apns-id", "2")])
        #expect(response.header("APNS-ID") == "1")
        #expect(response.header("apns") == nil)
    }

    @Test("the CA bundle holds the system bundle followed by the extra file")
    func combinesCABundles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let system = "-----BEGIN CERTIFICATE-----\nSYSTEM\n-----END CERTIFICATE-----\n"
        let extra = "-----BEGIN CERTIFICATE-----\nEXTRA\n-----END CERTIFICATE-----\n"
        try system.write(toFile: directory.path + "/system.pem", atomically: true, encoding: .utf8)
        try extra.write(toFile: directory.path + "/extra.pem", atomically: true, encoding: .utf8)
        let bundle = try CABundle(systemFile: directory.path + "/system.pem", extraFile: directory.path + "/extra.pem")
        let bundleFile = try #require(bundle.caFile)
        #expect(try String(contentsOfFile: bundleFile, encoding: .utf8) == system + "\n" + extra)
        #expect(bundle.clearsCAPath)

        // With no system file configured, curl's own bundle is found and comes first.
        let defaults = try CABundle(systemFile: nil, extraFile: directory.path + "/extra.pem")
        let defaultsFile = try #require(defaults.caFile)
        let combined = try String(contentsOfFile: defaultsFile, encoding: .utf8)
        #expect(combined.utf8.count > extra.utf8.count + 1000)
        #expect(combined.hasSuffix("\n" + extra))

        // Without an extra file, curl's defaults stay, minus the CA directory when the bundle exists.
        let systemOnly = try CABundle(systemFile: nil, extraFile: nil)
        #expect(systemOnly.caFile == nil)

        try "no certificate".write(toFile: directory.path + "/empty.pem", atomically: true, encoding: .utf8)
        #expect(throws: HTTPClientError.self) {
            _ = try CABundle(systemFile: nil, extraFile: directory.path + "/empty.pem")
        }
    }
}
