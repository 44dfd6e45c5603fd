/// Why an SDK call failed. Never holds a token or a secret.
public struct HeraldError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public let code: Code
    /// The HTTP status, when the server answered.
    public let status: Int?
    /// The details.
    public let detail: String

    /// An error.
    public init(code: Code, status: Int? = nil, detail: String = "") {
        self.code = code
        self.status = status
        self.detail = detail
    }

    /// `server (503): …`.
    public var description: String {
        var text = code.rawValue
        if let status { text += " (\(status))" }
        if !detail.isEmpty { text += ": \(detail)" }
        return text
    }

    /// True for failures worth retrying later: offline, timed out, 5xx, 429 and 408.
    public var isRetryable: Bool { [.offline, .timedOut, .server, .rateLimited, .storageUnavailable].contains(code) }

    /// The kinds of failure. Open.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The code's name.
        public let rawValue: String
        /// The code named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// No network.
        public static let offline = Code(rawValue: "offline")
        /// No answer in time.
        public static let timedOut = Code(rawValue: "timed_out")
        /// Storage isn't readable yet (before first unlock): nothing was assumed, try later.
        public static let storageUnavailable = Code(rawValue: "storage_unavailable")
        /// Storage failed.
        public static let storage = Code(rawValue: "storage")
        /// The server still refused the signature after registering again.
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// A 4xx answer.
        public static let rejected = Code(rawValue: "rejected")
        /// A 5xx answer (or 408).
        public static let server = Code(rawValue: "server")
        /// A 429 answer.
        public static let rateLimited = Code(rawValue: "rate_limited")
        /// An answer the SDK could not read.
        public static let malformedResponse = Code(rawValue: "malformed_response")
        /// Bad input from the app (a segment too long, …).
        public static let invalidArgument = Code(rawValue: "invalid_argument")
        /// The SDK was stopped by `deleteMyData()`: start again for a new install.
        public static let stopped = Code(rawValue: "stopped")
        /// `Herald.start` has not been called.
        public static let notStarted = Code(rawValue: "not_started")
        /// The request could not be built (a bad base URL).
        public static let invalidURL = Code(rawValue: "invalid_url")
    }
}
