/// The kind of a survey question, as the admin API names it (`"type"`). Open: a later Herald may add kinds.
///
/// ```swift
/// SurveyQuestionType(rawValue: "rating") == .rating  // true
/// SurveyQuestionType.multipleChoice.isChoice          // true
/// ```
public struct SurveyQuestionType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The name on the wire: `single_choice`, `multiple_choice`, `rating`, `boolean`, `number`, `slider`,
    /// `open_ended`.
    public let rawValue: String

    /// The type named `rawValue` (known or not: check `isKnown`).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// One of the question's choices, answered with its id (a string).
    public static let singleChoice = SurveyQuestionType(rawValue: "single_choice")
    /// Several of the question's choices, answered with a list of distinct choice ids.
    public static let multipleChoice = SurveyQuestionType(rawValue: "multiple_choice")
    /// A whole number on a scale, 1…5 unless the question says otherwise.
    public static let rating = SurveyQuestionType(rawValue: "rating")
    /// Yes or no, answered with `true` or `false`.
    public static let boolean = SurveyQuestionType(rawValue: "boolean")
    /// Any finite number, within the question's optional minimum and maximum.
    public static let number = SurveyQuestionType(rawValue: "number")
    /// A number on a slider, whole numbers 0…10 unless the question says otherwise.
    public static let slider = SurveyQuestionType(rawValue: "slider")
    /// Free text, at most 2000 characters.
    public static let openEnded = SurveyQuestionType(rawValue: "open_ended")

    /// Every type this version of Herald can show and check, in the order the admin API lists them.
    public static let allKnown: [SurveyQuestionType] = [
        .singleChoice, .multipleChoice, .rating, .boolean, .number, .slider, .openEnded,
    ]

    /// True for the seven types above.
    public var isKnown: Bool { Self.allKnown.contains(self) }

    /// True for the types answered from a list of choices (`single_choice`, `multiple_choice`).
    public var isChoice: Bool { self == .singleChoice || self == .multipleChoice }

    /// The name on the wire.
    public var description: String { rawValue }
}
