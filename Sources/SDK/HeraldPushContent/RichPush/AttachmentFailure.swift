/// Why a push's media was not attached (the notification then shows without it, as it came).
public struct AttachmentFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public let code: Code
    /// The details (never more of the URL than its host).
    public let detail: String

    /// A failure.
    public init(code: Code, detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// `too_large: …`.
    public var description: String { detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)" }

    /// The kinds of failure. Open.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The code's name.
        public let rawValue: String
        /// The code named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The payload has no `ab.att` with a `url` and a `type`.
        public static let noAttachment = Code(rawValue: "no_attachment")
        /// The URL is not https (or not a URL).
        public static let insecureURL = Code(rawValue: "insecure_url")
        /// The `type` is not one iOS attaches.
        public static let unsupportedType = Code(rawValue: "unsupported_type")
        /// Larger than iOS allows for its kind.
        public static let tooLarge = Code(rawValue: "too_large")
        /// The bytes are not what the type says (an HTML error page, a WebP called `jpg`, nothing at all).
        public static let wrongContent = Code(rawValue: "wrong_content")
        /// The server answered other than 2xx.
        public static let httpStatus = Code(rawValue: "http_status")
        /// The download failed.
        public static let network = Code(rawValue: "network")
        /// Time ran out.
        public static let timedOut = Code(rawValue: "timed_out")
        /// The file could not be written.
        public static let storage = Code(rawValue: "storage")
    }
}
