/// Why an ``HTTP2Client`` request produced no response. Its text never holds a request body, a
/// header value or a URL path (APNs paths carry device tokens), only what failed and where.
package struct HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is; decides whether a retry can help.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A stable name, e.g. `"timeout"`.
        package let rawValue: String

        /// Creates a code; use the static members.
        package init(rawValue: String) { self.rawValue = rawValue }

        /// The request's `timeout` (or the connect timeout) ran out.
        package static let timeout = Self(rawValue: "timeout")
        /// No connection could be made: name resolution failed, or the peer refused or did not answer.
        package static let connectionFailed = Self(rawValue: "connectionFailed")
        /// TLS failed: the handshake, or verification of the peer's certificate.
        package static let tls = Self(rawValue: "tls")
        /// The connection or the HTTP/2 stream broke (reset by the server, connection closed or found dead,
        /// only part of a response received). Worth retrying; the client uses a new connection for it.
        /// Streams the server refused without processing them (`REFUSED_STREAM`, or above a `GOAWAY`'s last
        /// stream) are sent again by the client itself and end here only after
        /// ``HTTP2Client/Configuration/maxTransparentResends`` such attempts.
        package static let connectionReset = Self(rawValue: "connectionReset")
        /// The request was cancelled: by ``HTTP2Client/shutdown()`` or by cancelling the awaiting task.
        package static let cancelled = Self(rawValue: "cancelled")
        /// The request cannot be sent as given: bad URL, scheme, method or header.
        package static let invalidRequest = Self(rawValue: "invalidRequest")
        /// Too many requests are already queued or in flight (``HTTP2Client/Configuration/maxPendingRequests``).
        package static let overloaded = Self(rawValue: "overloaded")
        /// Anything else, e.g. a response body over ``HTTP2Client/Configuration/maxResponseBodySize``.
        package static let other = Self(rawValue: "other")

        package var description: String { rawValue }
    }

    /// The kind of failure.
    package let code: Code
    /// What went wrong, for logs.
    package let message: String
    /// The HTTP/2 error code behind a ``Code/connectionReset``: the `RST_STREAM` code that ended the stream, or
    /// the code of the `GOAWAY` that ended its connection (e.g. ``HTTP2ErrorCode/enhanceYourCalm``, which asks the
    /// sender to slow down). `nil` when the server sent neither.
    package let http2ErrorCode: HTTP2ErrorCode?

    /// Creates an error, for stand-ins and tests.
    package init(code: Code, message: String, http2ErrorCode: HTTP2ErrorCode? = nil) {
        self.code = code
        self.message = message
        self.http2ErrorCode = http2ErrorCode
    }

    package var description: String {
        let suffix = http2ErrorCode.map { " (HTTP/2 \($0))" } ?? ""
        return "HTTPClientError.\(code.rawValue): \(message)\(suffix)"
    }
}
