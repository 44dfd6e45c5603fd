/// What is wrong with one field of a device event, or with an events body as a whole.
///
/// `message` reads after the field (`"occurred_at must be an ISO 8601 time"`); `code` is stable.
public struct DeviceEventProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field, as a path in the event: `id`, `type`, `occurred_at`, `notification_id`, `data`,
    /// `data.position_seconds`, `data.answers[2].question_id`, `data.answers.<question id>`,
    /// `data.properties.<key>`; `events` for the body.
    public let field: String
    /// Which rule was broken.
    public let code: Code
    /// The explanation, to read after the field.
    public let message: String

    /// A problem.
    public init(field: String, code: Code, message: String) {
        self.field = field
        self.code = code
        self.message = message
    }

    /// `occurred_at must be an ISO 8601 time`.
    public var description: String { "\(field) \(message)" }

    /// Which rule a field broke. Open: later versions may add codes.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// The code named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A field the type needs is absent or null.
        public static let required = Code(rawValue: "required")
        /// The field's JSON type is wrong.
        public static let wrongType = Code(rawValue: "wrong_type")
        /// The field's value isn't acceptable (not a UUID, not a time, a name with other characters, …).
        public static let invalid = Code(rawValue: "invalid")
        /// A type this version doesn't know.
        public static let unknownType = Code(rawValue: "unknown_type")
        /// A time outside the window the server accepts.
        public static let outOfRange = Code(rawValue: "out_of_range")
        /// Too many items (events in a body, properties of a custom event).
        public static let tooMany = Code(rawValue: "too_many")
        /// Text or a list too long.
        public static let tooLong = Code(rawValue: "too_long")
        /// It names something that does not exist for the caller (another install's message, say).
        public static let notFound = Code(rawValue: "not_found")
        /// The same question answered twice in one submission.
        public static let duplicate = Code(rawValue: "duplicate")
        /// A survey answer the shared survey validator refuses (its code is in the message).
        public static let answer = Code(rawValue: "answer")
        /// A `survey.submitted` for a message that isn't a survey known here.
        public static let unknownSurvey = Code(rawValue: "unknown_survey")

        /// The code's name.
        public var description: String { rawValue }
    }
}
