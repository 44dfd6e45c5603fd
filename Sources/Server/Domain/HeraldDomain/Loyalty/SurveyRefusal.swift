import HeraldModel

/// Why a user's answers to a survey were not stored (`LoyaltyService.submitSurvey`).
package struct SurveyRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of refusal.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        /// Short name.
        package let rawValue: String
        /// A code named `rawValue`.
        package init(_ rawValue: String) { self.rawValue = rawValue }

        /// The survey was answered before (or meanwhile, by a second tap or the other channel).
        package static let answeredAlready = Code("answered_already")
        /// The answers don't fit the survey's questions: `problems` says how.
        package static let invalidAnswers = Code("invalid_answers")
        /// The survey's definition can't be read (it was checked when the survey was made: the server's trouble).
        package static let unreadableDefinition = Code("unreadable_definition")

        package var description: String { rawValue }
    }

    /// What kind of refusal.
    package let code: Code
    /// What the validator found wrong, per question (`invalidAnswers`).
    package let problems: [SurveyAnswerProblem]

    /// A refusal.
    package init(_ code: Code, problems: [SurveyAnswerProblem] = []) {
        self.code = code
        self.problems = problems
    }

    package var description: String {
        problems.isEmpty ? code.rawValue : "\(code): " + problems.map(\.description).joined(separator: "; ")
    }
}
