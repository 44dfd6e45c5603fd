import Foundation
import HeraldModel
import Synchronization

/// In-process exchanges: a request handed to the server as a client would send it, answered as it would be over a
/// connection, with no socket and no daemon (the server need not be started). What a test of the application uses
/// instead of a port, as Hummingbird's `.router` test mode and Vapor's `.inMemory` do.
///
/// ```swift
/// let response = server.respond(
///     inProcess: .init(method: "GET", target: "/healthz", headers: [("Host", "herald")]), peer: "127.0.0.1")
/// ```
///
/// The steps are the server's own, in its order: the header fields' checks that need no connection (431 for too
/// many or too large, 400 for a control byte or a body whose end is in doubt), the route's streaming consumer or
/// the body limit (413), the request id (the client's or one made here), the client's address (the peer, or who a
/// trusted proxy names), offloaded routes on the server's workers (503 when they are all busy), the responder, and
/// the header fields sent with the answer. What only a connection has is not emulated: admission and per-address
/// limits, timeouts, the request line's and the `Host` field's checks, draining, HTTP framing; tests of those use a
/// socket. libmicrohttpd's own additions are: `Content-Length` (also for `HEAD`, whose body is dropped) and `Date`.
extension HTTPServer {
    /// A request as a client sends it.
    public struct InProcessRequest: Sendable {
        /// The method, as sent.
        public var method: String
        /// The request target, as sent.
        public var target: String
        /// The header fields, in order, names as sent.
        public var headers: [(name: String, value: String)]
        /// The body.
        public var body: [UInt8]

        /// A request of `method` to `target`.
        public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
            self.method = method
            self.target = target
            self.headers = headers
            self.body = body
        }
    }

    /// What the server answers `request` from a client at `peer`, as it would over a connection (see the extension's
    /// documentation for what is and is not applied). A file body is read into memory.
    public func respond(inProcess request: InProcessRequest, peer: String) -> HTTPResponse {
        let headers = request.headers.map { (name: $0.name.lowercased(), value: $0.value) }
        let method = HTTPMethod(request.method)
        let requestID = nextRequestID(headers.first { $0.name == "x-request-id" }?.value)
        var routed = HTTPRequest(
            method: method, target: request.target, headers: headers, body: request.body, id: requestID,
            remoteAddress: configuration.trustedProxies.client(peer: peer, headers: headers))
        if let refusal = inProcessRefusal(request, headers: headers, routed: &routed) {
            var refused = routed
            (refused.headers, refused.body) = ([], [])
            responder.refused(refused, with: refusal)
            return Self.asSent(refusal, to: method, requestID: requestID)
        }
        return Self.asSent(inProcessAnswer(routed), to: method, requestID: requestID)
    }

    /// The answer refusing `request` before it is routed, if it is refused; a streamed body is handed to its
    /// route's consumer on the way (into `routed`).
    private func inProcessRefusal(
        _ request: InProcessRequest, headers: [(name: String, value: String)], routed: inout HTTPRequest
    ) -> HTTPResponse? {
        var head = RequestHead()
        for (name, value) in headers {
            head.bytes += name.utf8.count + value.utf8.count + 4
            if Array(value.utf8).withUnsafeBytes({ HTTPHeadChecks.hasControlBytes($0) }) { head.controlBytes = true }
            if name == "content-length" { head.addContentLength(value) }
            if name == "transfer-encoding" { head.transferEncodings.append(value) }
        }
        if let refusal = fieldsRefusal(head, fieldCount: headers.count, layout: { nil }) { return refusal }
        guard !request.body.isEmpty else { return nil }
        var bodyless = routed
        bodyless.body = []
        do {
            if let streamed = try responder.streamedBody(for: bodyless) {
                request.body.withUnsafeBytes { streamed.receive($0) }
                routed.body = []
                routed.streamedBody = streamed
                return nil
            }
        } catch {
            return ErrorMiddleware.response(for: error, to: bodyless, logger: logger)
        }
        let limit = bodyLimit(routed.method, target: request.target) { name in
            let lowered = name.lowercased()
            return headers.first { $0.name == lowered }?.value
        }
        return request.body.count > limit ? bodyTooLarge(limit).response : nil
    }

    /// The responder's answer to `request`: on one of the server's workers when its route is offloaded.
    private func inProcessAnswer(_ request: HTTPRequest) -> HTTPResponse {
        let answer: @Sendable () -> HTTPResponse = { [self] in
            do {
                return try responder.respond(to: request)
            } catch {
                return ErrorMiddleware.response(for: error, to: request, logger: logger)
            }
        }
        guard responder.isOffloaded(request) else { return answer() }
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<HTTPResponse?>(nil)
        guard
            workers.submit({
                result.withLock { $0 = answer() }
                done.signal()
            })
        else {
            responder.refused(request, with: Self.workersBusy)
            return Self.workersBusy
        }
        done.wait()
        return result.withLock { $0 } ?? Self.workersBusy
    }

    /// `response` as a client receives it: the header fields the server sends (`sentHeaders`), libmicrohttpd's
    /// `Content-Length` and `Date`, and no body for `HEAD`.
    static func asSent(_ response: HTTPResponse, to method: HTTPMethod, requestID: String) -> HTTPResponse {
        var body: [UInt8]
        switch response.body {
        case .bytes(let bytes):
            body = bytes
        case .file(let path, let offset, let length):
            guard let handle = FileHandle(forReadingAtPath: path) else {
                return asSent(
                    HTTPError(.internalServerError, field: "base", "file unavailable").response, to: method,
                    requestID: requestID)
            }
            defer { try? handle.close() }
            try? handle.seek(toOffset: UInt64(offset))
            body = [UInt8]((try? handle.read(upToCount: Int(length))) ?? Data())
        }
        var headers = sentHeaders(of: response, requestID: requestID)
        let bodiless = response.status.code < 200 || response.status == .noContent || response.status == .notModified
        if !bodiless && !headers.contains(where: { $0.name.lowercased() == "content-length" }) {
            headers.append((name: "Content-Length", value: String(body.count)))
        }
        headers.append((name: "Date", value: HTTPDate.format(secondsSince1970: Int64(Date().timeIntervalSince1970))))
        if method == .head || bodiless { body = [] }
        return HTTPResponse(status: response.status, headers: headers, body: .bytes(body))
    }
}
