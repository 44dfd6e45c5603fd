import CMicroHTTPD
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Head checks: what is decided of a request from its head alone, on libmicrohttpd's first call for it, before any
/// of its body is read. Each step either lets the request on or names the answer that refuses it; a refusal is
/// answered at once, and libmicrohttpd then closes the connection (no body is read after an early answer).
extension HTTPServer {
    /// Runs the head's checks in order: draining, admission, Host, the header fields, then the body's framing and
    /// limit. A head that passes them all waits for its body (answering on this first call would make libmicrohttpd
    /// close the connection).
    func checkHead(
        _ connection: OpaquePointer, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, state: RequestState
    ) -> MHD_Result {
        if let refusal = drainingRefusal(state) ?? admissionRefusal(connection, state)
            ?? hostRefusal(connection, version: version)
        {
            return refuse(refusal, connection, method: method, state: state)
        }
        var head = RequestHead()
        let fieldCount = withUnsafeMutablePointer(to: &head) { pointer in
            Int(MHD_get_connection_values_n(connection, .HEADER_KIND, HTTPServer.headReader, pointer))
        }
        if let refusal = fieldsRefusal(
            head, fieldCount: fieldCount, layout: { headLayout(connection, method: method, head) })
            ?? openBody(head, connection, method: method, state: state)
        {
            return refuse(refusal, connection, method: method, state: state)
        }
        return .YES
    }

    /// While the server drains, every new request is answered 503 and its connection closed. It is not work the
    /// shutdown waits for: clients that keep calling would otherwise hold it to its grace.
    private func drainingRefusal(_ state: RequestState) -> HTTPResponse? {
        guard draining.load(ordering: .acquiring) else { return nil }
        state.counted = false
        completedOne()
        var response = HTTPError(.serviceUnavailable, field: "base", "shutting down").response
        // And no next request on this connection: it closes with the server.
        response.headers += [(name: "retry-after", value: "1"), (name: "connection", value: "close")]
        return response
    }

    /// A connection let in past its address's limit is refused, and one let into the reserve is served only for the
    /// reserved paths (`ConnectionGuard`).
    private func admissionRefusal(_ connection: OpaquePointer, _ state: RequestState) -> HTTPResponse? {
        let socket = herald_mhd_connection_fd(connection)
        let admission = socket >= 0 ? connectionGuard.headReceived(socket: socket) : .normal
        guard admission != .normal else { return nil }
        let path =
            state.target.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(state.target[..<$0]) } ?? state.target
        guard admission == .overAddressLimit || !configuration.reservedPaths.contains(path) else { return nil }
        let why =
            admission == .overAddressLimit
            ? "too many connections from your address; retry later" : "server busy; retry later"
        var response = HTTPError(.serviceUnavailable, field: "base", why).response
        response.headers += [(name: "retry-after", value: "1"), (name: "connection", value: "close")]
        return response
    }

    /// HTTP/1.1, and any later 1.x libmicrohttpd serves as 1.1 (RFC 9112 §2.6), must name its Host.
    private func hostRefusal(_ connection: OpaquePointer, version: UnsafePointer<CChar>?) -> HTTPResponse? {
        guard let version, strncmp(version, "HTTP/1.", 7) == 0, strcmp(version, "HTTP/1.0") != 0,
            MHD_lookup_connection_value(connection, .HEADER_KIND, "Host") == nil
        else { return nil }
        return HTTPError(.badRequest, field: "base", "an HTTP/1.1 request needs a Host header").response
    }

    /// The header fields as a whole: too many or too large (431), a folded line, a control byte, or a body whose end
    /// is in doubt (400). `layout` tells how the head lies in libmicrohttpd's buffer (nil when it cannot be told).
    func fieldsRefusal(_ head: RequestHead, fieldCount: Int, layout: () -> HTTPHeadChecks.Layout?) -> HTTPResponse? {
        if let tooLarge = headersTooLarge(bytes: head.bytes, count: fieldCount) {
            return HTTPError(.requestHeaderFieldsTooLarge, field: "base", tooLarge).response
        }
        let layout = head.controlBytes ? nil : layout()
        var refusal: HTTPResponse
        if layout == .notInPlace {
            // RFC 9112 §5.2: a server may refuse obs-fold with a 400 (libmicrohttpd 0.9.75 mangles it).
            refusal = HTTPError(.badRequest, field: "base", "a header field is folded over several lines").response
        } else if head.controlBytes || layout == .hiddenBytes {
            // A NUL would cut the value short where it is read as a C string (`Bearer <token>\0junk`:
            // libmicrohttpd hands over `Bearer <token>`, the layout check sees the rest), and no header Herald
            // reads has a use for control bytes (RFC 9110 §5.5).
            refusal =
                HTTPError(.badRequest, field: "base", "a header field value holds a control character").response
        } else if let framing = head.framingError {
            // Where the body ends is in doubt: a proxy in front may read it otherwise (request smuggling).
            // Answered before the body is read, so libmicrohttpd closes the connection after it.
            refusal = framing.response
        } else {
            return nil
        }
        refusal.headers.append((name: "connection", value: "close"))
        return refusal
    }

    /// Gets ready for the body: a route taking it as it arrives (`HTTPResponder.streamedBody`) has it at any size;
    /// any other declared body over the request's limit is refused (413), and one within it has its room reserved.
    private func openBody(
        _ head: RequestHead, _ connection: OpaquePointer, method: UnsafePointer<CChar>?, state: RequestState
    ) -> HTTPResponse? {
        let declaredLength = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length").flatMap {
            HTTPHeadChecks.contentLength(String(cString: $0))
        }
        if (declaredLength ?? 0) > 0 || !head.transferEncodings.isEmpty {
            let requestHead = requestHead(connection, method: method, state)
            do {
                state.streamed = try responder.streamedBody(for: requestHead)
            } catch {
                return ErrorMiddleware.response(for: error, to: requestHead, logger: logger)
            }
        }
        if state.streamed == nil, let declared = declaredLength, declared > 0 {
            let limit = bodyLimit(of: state, method: method, connection: connection)
            // Answered before reading the body; libmicrohttpd then closes the connection.
            if declared > limit { return bodyTooLarge(limit).response }
            // One allocation for the whole body instead of doubling (and copying) up to it.
            state.body.reserveCapacity(min(declared, Self.largestReservation))
        }
        return nil
    }

    /// What is wrong with a request head of `bytes` in `count` fields, if anything (a 431).
    private func headersTooLarge(bytes: Int, count: Int) -> String? {
        if bytes > configuration.maxHeaderBytes {
            return "header fields of \(bytes) bytes; at most \(configuration.maxHeaderBytes)"
        }
        if count > configuration.maxHeaderCount {
            return "too many header fields: \(count), at most \(configuration.maxHeaderCount)"
        }
        return nil
    }

    /// What the header fields say of the request head as a whole: its size and how its body is framed.
    struct RequestHead {
        /// The fields' length (name, value, `: ` and CRLF each).
        var bytes = 0
        /// Every `Content-Length` value, comma-separated lists split.
        var contentLengths: Set<String> = []
        /// The `Transfer-Encoding` fields' values, as received.
        var transferEncodings: [String] = []
        /// Whether a value holds a control byte (NUL included; horizontal tab allowed).
        var controlBytes = false
        /// Where each field's name and value are (addresses in libmicrohttpd's buffer), in the order received.
        var placements: [HTTPHeadChecks.FieldPlacement] = []

        /// Takes in a `Content-Length` field's value (a comma-separated list split, each item trimmed).
        mutating func addContentLength(_ text: String) {
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                contentLengths.insert(item.trimmingCharacters(in: .whitespaces))
            }
        }

        /// Why the body's end is ambiguous or unreadable, if it is (`HTTPHeadChecks.framingError`).
        var framingError: HTTPError? {
            HTTPHeadChecks.framingError(contentLengths: contentLengths, transferEncodings: transferEncodings)
        }
    }

    /// Whether this libmicrohttpd parses heads as `HTTPHeadChecks.layout(of:fields:)` expects (checked on 0.9.75's
    /// source); with another, the check is skipped rather than refusing requests it cannot judge.
    private static let headLayoutKnown = String(cString: MHD_get_version()) == "0.9.75"

    /// Whether the head of the request on `connection` (whose request line starts at `method`) hides bytes after a
    /// NUL in a field, or was not parsed in place (a folded line); nil when it cannot be told.
    private func headLayout(_ connection: OpaquePointer, method: UnsafePointer<CChar>?, _ head: RequestHead)
        -> HTTPHeadChecks.Layout?
    {
        guard Self.headLayoutKnown, let method, !head.placements.isEmpty else { return nil }
        let size = herald_mhd_header_size(connection)
        guard size > 0 else { return nil }
        let start = Int(bitPattern: method)
        let fields = head.placements.map {
            HTTPHeadChecks.FieldPlacement(
                name: $0.name - start, nameCount: $0.nameCount, value: $0.value - start, valueCount: $0.valueCount)
        }
        return HTTPHeadChecks.layout(of: UnsafeRawBufferPointer(start: method, count: size), fields: fields)
    }
}
