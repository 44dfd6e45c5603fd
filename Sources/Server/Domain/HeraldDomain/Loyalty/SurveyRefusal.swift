import HeraldModel

/// Why a user's answers to a survey were not stored (`LoyaltyService.submitSurvey`).
public struct SurveyRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of refusal.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// Short name.
        public let rawValue: String
        /// A code named `rawValue`.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// The survey was answered before (or meanwhile, by a second tap or the other channel).
        public static let answeredAlready = Code("answered_already")
        /// The answers don't fit the survey's questions: `problems` says how.
        public static let invalidAnswers = Code("invalid_answers")
        /// The survey's definition can't be read (it was checked when the survey was made: the server's trouble).
        public static let unreadableDefinition = Code("unreadable_definition")

        public var description: String { rawValue }
    }

    /// What kind of refusal.
    public let code: Code
    /// What the validator found wrong, per question (`invalidAnswers`).
    public let problems: [SurveyAnswerProblem]

    /// A refusal.
    public init(_ code: Code, problems: [SurveyAnswerProblem] = []) {
        self.code = code
        self.problems = problems
    }

    public var description: String {
        problems.isEmpty ? code.rawValue : "\(code): " + problems.map(\.description).joined(separator: "; ")
    }
}
