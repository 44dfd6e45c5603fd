/// Something the SDK wants the developer to know: an event dropped, a link refused, a request rejected. Never
/// holds a token or a secret.
public struct HeraldDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// What happened, stable.
    public let code: Code
    /// The details, in English.
    public let message: String

    /// A diagnostic.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `event_dropped: …`.
    public var description: String { "\(code.rawValue): \(message)" }

    /// The kinds of diagnostic. Open.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The code's name.
        public let rawValue: String
        /// The code named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// An event was not queued or not sent: invalid, too old, the queue full, or refused by the server.
        public static let eventDropped = Code(rawValue: "event_dropped")
        /// A call to action's link was refused by the link policy.
        public static let linkRefused = Code(rawValue: "link_refused")
        /// The server refused a request (a 4xx other than 401, 408 and 429).
        public static let requestRejected = Code(rawValue: "request_rejected")
        /// Registration failed.
        public static let registrationFailed = Code(rawValue: "registration_failed")
        /// Storage could not be read or written.
        public static let storage = Code(rawValue: "storage")
        /// The server answered something the SDK could not read.
        public static let malformedResponse = Code(rawValue: "malformed_response")
        /// A push's message was missing and could not be fetched.
        public static let messageUnavailable = Code(rawValue: "message_unavailable")
        /// The device's clock is off from the server's; requests are signed with the server's time.
        public static let clockSkew = Code(rawValue: "clock_skew")
    }
}
