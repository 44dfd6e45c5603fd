import HeraldModel
import CMicroHTTPD
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A request's way through the server: libmicrohttpd calls `handle` for it once with its head (checked, see
/// `checkHead`), once per piece of body, and once more when the body is complete (or the offloaded answer is in),
/// when it is routed and answered.
extension HTTPServer {
    /// What the server keeps of one request between libmicrohttpd's calls for it.
    final class RequestState {
        /// The request target, as received.
        let target: String
        /// When the request line arrived (`MonotonicTime`).
        let started = MonotonicTime.now()
        /// Whether the head was checked (the first call).
        var headersChecked = false
        /// Counted in `inFlight` until completed; not once refused while draining (shutdown need not wait for it).
        var counted = true
        /// The body so far, unless it is streamed.
        var body: [UInt8] = []
        /// Body bytes received so far (whether kept in `body`, streamed, or discarded).
        var received = 0
        /// The body going to its route's consumer as it arrives (`HTTPResponder.streamedBody`), if it does.
        var streamed: HTTPStreamedBody?
        /// The request's body limit, worked out when it first has a body (bodiless requests never pay for it).
        var bodyLimit: Int?
        /// Whether the body outgrew its limit (it is then discarded as it comes, and answered 413).
        var bodyTooLarge = false
        /// The request running on a worker while its connection is suspended.
        var offload: Offload?

        init(target: String) { self.target = target }
    }

    /// One of libmicrohttpd's calls for a request: the head, a piece of body, or the end.
    func handle(
        _ connection: OpaquePointer, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
        upload: UnsafePointer<CChar>?, size: UnsafeMutablePointer<Int>, state: RequestState
    ) -> MHD_Result {
        if !state.headersChecked {
            state.headersChecked = true
            return checkHead(connection, method: method, version: version, state: state)
        }
        if size.pointee > 0 {
            return receiveBody(upload, size: size, connection, method: method, state: state)
        }
        if let offload = state.offload {
            // Resumed: the worker has answered (or the server is stopping).
            state.offload = nil
            return queue(offload.response, on: connection, requestID: offload.requestID)
        }
        if state.bodyTooLarge {
            return refuse(
                bodyTooLarge(bodyLimit(of: state, method: method, connection: connection)).response, connection,
                method: method, state: state)
        }
        return route(connection, method: method, state: state)
    }

    /// Takes a piece of body: to the route's consumer when streamed, else kept up to the request's limit (beyond,
    /// discarded). A body arriving slower than `bodyTimeout` and `minimumBodyRate` allow closes the connection.
    private func receiveBody(
        _ upload: UnsafePointer<CChar>?, size: UnsafeMutablePointer<Int>, _ connection: OpaquePointer,
        method: UnsafePointer<CChar>?, state: RequestState
    ) -> MHD_Result {
        state.received += size.pointee
        let received = UInt64(state.received)
        let allowed =
            MonotonicTime.nanoseconds(configuration.bodyTimeout) + received * 1_000_000_000
            / UInt64(max(1, configuration.minimumBodyRate))
        if MonotonicTime.now() - state.started > allowed {
            // libmicrohttpd takes no answer while a body is still arriving (queueing one fails): the
            // connection is closed.
            logger.notice("request body too slow; connection closed", ["target": state.target])
            return .NO
        }
        if let streamed = state.streamed, let upload {
            streamed.receive(UnsafeRawBufferPointer(start: upload, count: size.pointee))
        } else if !state.bodyTooLarge, let upload {
            if state.body.count + size.pointee > bodyLimit(of: state, method: method, connection: connection) {
                state.bodyTooLarge = true
                state.body = []
            } else {
                upload.withMemoryRebound(to: UInt8.self, capacity: size.pointee) { bytes in
                    state.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: size.pointee))
                }
            }
        }
        size.pointee = 0
        return .YES
    }

    /// Routes the whole request: on a worker when its route is offloaded, else here and now.
    private func route(_ connection: OpaquePointer, method: UnsafePointer<CChar>?, state: RequestState) -> MHD_Result {
        var headers = HeaderCollector()
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values(connection, .HEADER_KIND, HTTPServer.headerIterator, pointer)
        }
        let requestID = nextRequestID(headers.fields.first { $0.name == "x-request-id" }?.value)
        var request = HTTPRequest(
            method: HTTPMethod(method.map { String(cString: $0) } ?? "GET"), target: state.target,
            headers: headers.fields, body: state.body, id: requestID,
            remoteAddress: clientAddress(connection, headers: headers.fields))
        request.streamedBody = state.streamed
        state.body = []
        state.streamed = nil
        if responder.isOffloaded(request) {
            return offload(request, connection, method: method, state: state)
        }
        let response: HTTPResponse
        do {
            response = try responder.respond(to: request)
        } catch {
            response = ErrorMiddleware.response(for: error, to: request, logger: logger)
        }
        return queue(response, on: connection, requestID: requestID)
    }

    /// The request as its head says it, before its body: what a streaming route is opened with.
    func requestHead(_ connection: OpaquePointer, method: UnsafePointer<CChar>?, _ state: RequestState)
        -> HTTPRequest
    {
        var headers = HeaderCollector()
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values(connection, .HEADER_KIND, HTTPServer.headerIterator, pointer)
        }
        return HTTPRequest(
            method: HTTPMethod(method.map { String(cString: $0) } ?? "GET"), target: state.target,
            headers: headers.fields, id: nextRequestID(headers.fields.first { $0.name == "x-request-id" }?.value),
            remoteAddress: clientAddress(connection, headers: headers.fields))
    }

    /// Sends `response` to a request refused before routing, and tells the responder (its metrics and access log).
    func refuse(
        _ response: HTTPResponse, _ connection: OpaquePointer, method: UnsafePointer<CChar>?, state: RequestState
    ) -> MHD_Result {
        let requestID = nextRequestID(offeredRequestID(connection))
        responder.refused(
            HTTPRequest(
                method: HTTPMethod(method.map { String(cString: $0) } ?? "GET"), target: state.target, id: requestID,
                remoteAddress: clientAddress(connection, headers: forwardingHeaders(connection))),
            with: response)
        return queue(response, on: connection, requestID: requestID)
    }

    /// The most capacity reserved up front from a declared `Content-Length` (beyond it the body grows as it comes).
    static let largestReservation = 64 << 20

    /// The body limit of the request: its route's own, else `maxBodySize`.
    func bodyLimit(of state: RequestState, method: UnsafePointer<CChar>?, connection: OpaquePointer) -> Int {
        if let known = state.bodyLimit { return known }
        let limit = bodyLimit(HTTPMethod(method.map { String(cString: $0) } ?? "GET"), target: state.target) { name in
            MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
        }
        state.bodyLimit = limit
        return limit
    }

    /// The body limit of a request to `target` whose header fields `header` reads: its route's own, else
    /// `maxBodySize`.
    func bodyLimit(_ method: HTTPMethod, target: String, header: (String) -> String?) -> Int {
        let path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(target[..<$0]) } ?? target
        return configuration.bodyLimit(method, path, header) ?? configuration.maxBodySize
    }

    /// The 413 for a body over `limit`.
    func bodyTooLarge(_ limit: Int) -> HTTPError {
        HTTPError(.payloadTooLarge, field: "base", "request body larger than \(limit) bytes")
    }

    /// The header fields `headerIterator` collects, names lower-cased.
    struct HeaderCollector {
        var fields: [(name: String, value: String)] = []
    }

    /// The `x-request-id` the client sent, if any.
    private func offeredRequestID(_ connection: OpaquePointer) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, "x-request-id").map { String(cString: $0) }
    }

    /// The request's id: the client's own when it is a short token, else one made here.
    func nextRequestID(_ offered: String?) -> String {
        if let offered, !offered.isEmpty, offered.utf8.count <= 64,
            offered.utf8.allSatisfy({
                $0 == 0x2D || $0 == 0x5F || $0 == 0x2E || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0)
                    || (0x61...0x7A).contains($0)
            })
        {
            return offered
        }
        let number = requestCounter.add(1, ordering: .relaxed).newValue
        return requestIDPrefix + "-" + String(number, radix: 16)
    }

    /// The client's address: the peer's, or the one a trusted proxy's forwarding headers name.
    func clientAddress(_ connection: OpaquePointer, headers: [(name: String, value: String)]) -> String? {
        configuration.trustedProxies.client(peer: remoteAddress(connection), headers: headers)
    }

    /// The forwarding headers of a request refused before its head was collected (the first of each).
    private func forwardingHeaders(_ connection: OpaquePointer) -> [(name: String, value: String)] {
        guard !configuration.trustedProxies.ranges.isEmpty else { return [] }
        return ["forwarded", "x-forwarded-for"].compactMap { name in
            MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { (name, String(cString: $0)) }
        }
    }

    /// The peer's address, numeric.
    func remoteAddress(_ connection: OpaquePointer) -> String? {
        guard let address = herald_mhd_client_addr(connection) else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                var addr = ipv4.pointee.sin_addr
                guard inet_ntop(AF_INET, &addr, &buffer, socklen_t(buffer.count)) != nil else { return nil }
                return Self.string(fromCString: buffer)
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                var addr = ipv6.pointee.sin6_addr
                guard inet_ntop(AF_INET6, &addr, &buffer, socklen_t(buffer.count)) != nil else { return nil }
                return Self.string(fromCString: buffer)
            }
        default:
            return nil
        }
    }

    private static func string(fromCString buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Hands `response` to libmicrohttpd to send (a file's bytes straight from its descriptor).
    func queue(_ response: HTTPResponse, on connection: OpaquePointer, requestID: String?) -> MHD_Result {
        let created: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            created = bytes.withUnsafeBytes { buffer in
                MHD_create_response_from_buffer(
                    buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress),
                    MHD_ResponseMemoryMode(rawValue: 2)!)  // MHD_RESPMEM_MUST_COPY
            }
        case .file(let path, let offset, let length):
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            if descriptor < 0 {
                logger.error("cannot open response file", ["error": String(cString: strerror(errno))])
                return queue(
                    HTTPError(.internalServerError, field: "base", "file unavailable").response, on: connection,
                    requestID: requestID)
            }
            created = MHD_create_response_from_fd_at_offset64(UInt64(length), descriptor, UInt64(offset))
            if created == nil { close(descriptor) }
        }
        guard let created else { return .NO }
        if response.status == .notModified && response.header("content-length") != nil {
            _ = herald_mhd_allow_content_length(created)
        }
        for header in Self.sentHeaders(of: response, requestID: requestID) {
            _ = MHD_add_response_header(created, header.name, header.value)
        }
        let result = MHD_queue_response(connection, UInt32(response.status.code), created)
        MHD_destroy_response(created)
        return result
    }

    /// The header fields sent with `response`: its own, then the request id (libmicrohttpd adds `Date`,
    /// `Content-Length` and `Connection` to them).
    static func sentHeaders(of response: HTTPResponse, requestID: String?) -> [(name: String, value: String)] {
        guard let requestID else { return response.headers }
        return response.headers + [(name: "x-request-id", value: requestID)]
    }
}
