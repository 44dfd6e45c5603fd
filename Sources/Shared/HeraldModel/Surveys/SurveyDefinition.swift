/// A survey as an operator writes it (docs/openapi.json): a title and its questions, one wizard step each.
///
/// The same definition, parsed by the same code, drives the server's checks and the SDK's wizard:
///
/// ```swift
/// let survey = try SurveyDefinition(json: JSON.parse(body))  // throws every problem, with field paths
/// let validator = SurveyValidator(survey)
/// let answers = try SurveyAnswers(json: JSON.parse(#"{"visit":4}"#))
/// validator.validate(answers)  // [] when the server would accept them
/// ```
public struct SurveyDefinition: Sendable, Hashable {
    /// The survey's title.
    public var title: String
    /// The questions in the order they are asked.
    public var questions: [SurveyQuestion]

    /// The most questions a survey may have.
    public static let maximumQuestions = 100
    /// The most choices a question may have.
    public static let maximumChoices = 50
    /// The longest title, in characters.
    public static let maximumTitleLength = 200
    /// The longest question text, in characters.
    public static let maximumQuestionTextLength = 1000
    /// The longest choice text, in characters.
    public static let maximumChoiceTextLength = 200

    /// A definition, taken as given: `validate()` says what is wrong with it.
    public init(title: String, questions: [SurveyQuestion]) {
        self.title = title
        self.questions = questions
    }

    /// The question with this id, if any.
    public func question(id: String) -> SurveyQuestion? {
        questions.first { $0.id == id }
    }

    /// What `init(json:)` would refuse in this definition's `json`: empty when it is good. For definitions built
    /// in code; one parsed from JSON has already passed.
    public func validate() -> [(field: String, message: String)] {
        do {
            _ = try SurveyDefinition(json: json)
            return []
        } catch {
            return error.problems
        }
    }
}
