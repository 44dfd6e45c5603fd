/// What is wrong with the answer to one question, or with the answers as a whole.
///
/// `message` reads after the question id (`"visit is required"`) and is English; `code` is stable, for an app
/// that shows its own words.
///
/// ```swift
/// for problem in validator.validate(answers) {
///     errors.add(problem.field, problem.message)  // 422 {"errors":{"visit":["is required"]}}
/// }
/// ```
public struct SurveyAnswerProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The question it is about: one of the survey's, or an id in the answers that isn't; nil when the answers
    /// aren't a JSON object at all.
    public let questionID: String?
    /// Which rule was broken.
    public let code: Code
    /// The explanation, to read after the question id.
    public let message: String

    /// A problem.
    public init(questionID: String?, code: Code, message: String) {
        self.questionID = questionID
        self.code = code
        self.message = message
    }

    /// The key for an errors object: the question id, or `answers` when there is none (that problem then
    /// comes alone, so it never shares a key with a question's).
    public var field: String { questionID ?? "answers" }

    /// `visit is required`.
    public var description: String { "\(field) \(message)" }

    /// Which rule an answer broke. Open: later versions may add codes.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// The code named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A required question is unanswered: absent, `null`, blank text or an empty selection.
        public static let required = Code(rawValue: "required")
        /// The answer's JSON type is not the question's (a string for a rating, a number for a boolean, …).
        public static let wrongType = Code(rawValue: "wrong_type")
        /// A choice id that isn't one of the question's choices.
        public static let unknownChoice = Code(rawValue: "unknown_choice")
        /// The same choice selected twice.
        public static let duplicateChoice = Code(rawValue: "duplicate_choice")
        /// Fewer choices selected than the question's `min_selected`.
        public static let tooFewChoices = Code(rawValue: "too_few_choices")
        /// More choices selected than the question's `max_selected`.
        public static let tooManyChoices = Code(rawValue: "too_many_choices")
        /// A number with a fraction where only whole numbers are accepted.
        public static let notWholeNumber = Code(rawValue: "not_whole_number")
        /// A number outside the question's range.
        public static let outOfRange = Code(rawValue: "out_of_range")
        /// Text longer than the question allows.
        public static let tooLong = Code(rawValue: "too_long")
        /// Text with a control character other than tab and newline.
        public static let controlCharacter = Code(rawValue: "control_character")
        /// An answer keyed by an id that isn't a question of the survey.
        public static let unknownQuestion = Code(rawValue: "unknown_question")
        /// The answers aren't a JSON object.
        public static let notAnObject = Code(rawValue: "not_an_object")
        /// The question's type is one this version of Herald can't check; any answer to it is refused.
        public static let unsupportedType = Code(rawValue: "unsupported_type")

        /// The code's name.
        public var description: String { rawValue }
    }
}
