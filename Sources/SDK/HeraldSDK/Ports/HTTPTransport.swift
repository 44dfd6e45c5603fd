/// How the SDK talks HTTP: one method, so tests hand it a fake and apps the real `URLSessionTransport`.
///
/// ```swift
/// struct Recording: HTTPTransport {
///     func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
///         TransportResponse(status: 200, body: Array(#"{"data":[]}"#.utf8))
///     }
/// }
/// ```
public protocol HTTPTransport: Sendable {
    /// Sends `request` and answers the response, whatever its status; throws only when there is none (offline,
    /// timed out, cancelled).
    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse
}

/// One HTTP request.
public struct TransportRequest: Sendable {
    /// `GET`, `POST`, `PUT`, `DELETE`.
    public var method: String
    /// The absolute URL, query included, percent-encoded.
    public var url: String
    /// Header fields in order.
    public var headers: [(name: String, value: String)]
    /// The body bytes (empty for none).
    public var body: [UInt8]
    /// How long to wait for the whole response.
    public var timeout: Duration

    /// A request.
    public init(
        method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
        timeout: Duration = .seconds(30)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// One HTTP response.
public struct TransportResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields in order.
    public var headers: [(name: String, value: String)]
    /// The body bytes.
    public var body: [UInt8]

    /// A response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// True for 200…299.
    public var isSuccess: Bool { (200..<300).contains(status) }
}

/// Why a request got no response.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public let code: Code
    /// A short explanation (never a token or a secret).
    public let detail: String

    /// An error.
    public init(code: Code, detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// `offline: …`.
    public var description: String { detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)" }

    /// The kinds of failure. Open.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The code's name.
        public let rawValue: String
        /// The code named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// No network, the host unreachable or the connection lost: worth retrying later.
        public static let offline = Code(rawValue: "offline")
        /// No answer in time: worth retrying later.
        public static let timedOut = Code(rawValue: "timed_out")
        /// The task was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
        /// The URL can't be used.
        public static let invalidURL = Code(rawValue: "invalid_url")
    }
}
