/// Why an ``HTTP2Client`` request produced no response. Its text never holds a request body, a
/// header value or a URL path (APNs paths carry device tokens), only curl's description of what failed.
public struct HTTPClientError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is; decides whether a retry can help.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A stable name, e.g. `"timeout"`.
        public let rawValue: String

        /// Creates a code; use the static members.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The request's `timeout` (or the connect timeout) ran out.
        public static let timeout = Self(rawValue: "timeout")
        /// No connection could be made: name resolution failed, or the peer refused or did not answer.
        public static let connectionFailed = Self(rawValue: "connectionFailed")
        /// TLS failed: the handshake, or verification of the peer's certificate.
        public static let tls = Self(rawValue: "tls")
        /// The connection or the HTTP/2 stream broke (reset, GOAWAY, send or receive failure, nothing or only
        /// part of a response received). Worth retrying, on a new connection.
        public static let connectionReset = Self(rawValue: "connectionReset")
        /// The request was cancelled: by ``HTTP2Client/shutdown()`` or by cancelling the awaiting task.
        public static let cancelled = Self(rawValue: "cancelled")
        /// The request cannot be sent as given: bad URL, scheme, method or header.
        public static let invalidRequest = Self(rawValue: "invalidRequest")
        /// Too many requests are already queued or in flight (``HTTP2Client/Configuration/maxPendingRequests``).
        public static let overloaded = Self(rawValue: "overloaded")
        /// Anything else.
        public static let other = Self(rawValue: "other")

        public var description: String { rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong, for logs.
    public let message: String

    /// Creates an error, for stand-ins and tests.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "HTTPClientError.\(code.rawValue): \(message)" }
}
