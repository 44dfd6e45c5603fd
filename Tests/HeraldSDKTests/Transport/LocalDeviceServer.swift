import Foundation
import HeraldCrypto
import HeraldHTTPServer
import HeraldModel
import HeraldObservability

/// A small device-API server on the project's own HTTP server, bound to port 0, for the transport's end-to-end
/// tests: it checks each signature over the request target exactly as received (with OpenSSL's HMAC), and serves
/// media for the notification service extension's fetcher. Only what those tests need; the live `herald serve`
/// is the real end-to-end.
final class LocalDeviceServer: HTTPResponder, @unchecked Sendable {
    struct Seen: Sendable {
        let method: String
        let target: String
        let signed: Bool
        let verified: Bool
        let body: [UInt8]
        let headers: [(name: String, value: String)]
    }

    private let lock = NSLock()
    private var seenRequests: [Seen] = []
    private var secret = ""
    private let server: HTTPServer
    var port: Int { server.port }
    var baseURL: String { "http://127.0.0.1:\(server.port)" }
    let message: HeraldMessage
    let image: [UInt8]

    init(message: HeraldMessage, imageSize: Int) throws {
        self.message = message
        image =
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + (0..<imageSize - 8).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let logger = Logger(label: "sdk-e2e", level: .critical)
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.threadCount = 2
        let box = ResponderBox()
        server = HTTPServer(configuration: configuration, responder: box, logger: logger)
        box.responder = self
        try server.start()
    }

    func stop() { server.shutdown(gracePeriod: .seconds(1)) }

    var seen: [Seen] { lock.withLock { seenRequests } }

    func respond(to request: HTTPRequest) throws -> HTTPResponse {
        let signature = request.header("x-herald-signature")
        var verified = false
        if let signature, let timestamp = request.header("x-herald-timestamp") {
            let bytes = DeviceRequestSignature.message(
                method: request.method.rawValue, target: request.target, timestamp: timestamp, body: request.body)
            let key = lock.withLock { Array(secret.utf8) }
            verified =
                Hex.encode(HMACSHA256.authenticationCode(for: bytes, key: key)) == signature
                && DeviceRequestSignature.isFresh(timestampHeader: timestamp, now: WallClock.system.now())
        }
        lock.withLock {
            seenRequests.append(
                Seen(
                    method: request.method.rawValue, target: request.target, signed: signature != nil,
                    verified: verified, body: request.body, headers: request.headers))
        }
        let path = request.rawPath
        if path.hasPrefix("/media/") { return media(path, request) }
        if request.method == .post && path == "/api/v1/installs" {
            lock.withLock { secret = "s3cret+/=é" }
            return .json(["credential": ["key_id": "k1", "secret": "s3cret+/=é"], "config": [:]], status: .created)
        }
        guard verified else { return .json(["errors": ["signature": ["is wrong"]]], status: .unauthorized) }
        switch (request.method, path) {
        case (.put, "/api/v1/installs/current"): return .json([:])
        case (.post, "/api/v1/notifications/pull"): return .json(["data": [message.json]])
        case (.post, "/api/v1/events"):
            let events = (try? JSON.parse(request.body))?["events"]?.arrayValue ?? []
            let results = events.map { event -> JSON in ["id": event["id"] ?? .null, "status": "accepted"] }
            return .json(["data": ["results": .array(results)]], status: .accepted)
        case (.get, "/api/v1/geofences"):
            if request.header("if-none-match") == "\"v1\"" { return HTTPResponse(status: .notModified) }
            var response = HTTPResponse.json([
                "data": [], "meta": ["refresh_seconds": 600, "refresh_distance_meters": 500],
            ])
            response.headers.append(("etag", "\"v1\""))
            return response
        default:
            return .json(["errors": ["path": ["not found"]]], status: .notFound)
        }
    }

    private func media(_ path: String, _ request: HTTPRequest) -> HTTPResponse {
        switch path {
        case "/media/image.png":
            return HTTPResponse(status: .ok, headers: [("content-type", "image/png")], body: .bytes(image))
        case "/media/huge.png":
            return HTTPResponse(
                status: .ok, headers: [("content-type", "image/png")],
                body: .bytes(image + [UInt8](repeating: 0, count: 10_000_001 - image.count)))
        case "/media/page.png":
            return .text("<html>not found</html>", contentType: "text/html")
        case "/media/redirect.png":
            return HTTPResponse(
                status: HTTPStatus(302), headers: [("location", "http://localhost:\(port)/media/image.png")])
        default:
            return .json([:], status: .notFound)
        }
    }
}

/// Lets the server be built before the responder it calls is complete.
private final class ResponderBox: HTTPResponder, @unchecked Sendable {
    weak var responder: LocalDeviceServer?

    func respond(to request: HTTPRequest) throws -> HTTPResponse {
        guard let responder else { return HTTPResponse(status: .serviceUnavailable) }
        return try responder.respond(to: request)
    }
}
