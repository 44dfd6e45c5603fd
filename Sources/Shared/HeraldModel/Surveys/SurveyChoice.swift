/// One of the choices of a `single_choice` or `multiple_choice` question.
///
/// ```swift
/// SurveyChoice(id: "coffee", text: "Coffee").json  // {"id":"coffee","text":"Coffee"}
/// ```
public struct SurveyChoice: Sendable, Hashable {
    /// What an answer names the choice by: 1 to 64 characters from `A-Z a-z 0-9 _ -`, unique in its question.
    public var id: String
    /// What the user reads.
    public var text: String

    /// A choice.
    public init(id: String, text: String) {
        self.id = id
        self.text = text
    }

    /// `{"id","text"}`.
    public var json: JSON { .object([("id", .string(id)), ("text", .string(text))]) }
}
