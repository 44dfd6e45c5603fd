/// Everything wrong with a survey definition, each problem on the path of its field
/// (`title`, `questions[2].choices`, `questions[0].choices[1].id`), in the order of the document.
///
/// ```swift
/// do {
///     _ = try SurveyDefinition(json: body)
/// } catch {
///     error.problems  // [(field: "questions[2].choices", message: "must have at least 2 choices")]
/// }
/// ```
public struct SurveyDefinitionError: Error, Sendable, CustomStringConvertible {
    /// The problems, at least one; messages read after the field's name ("title can't be blank").
    public let problems: [(field: String, message: String)]

    /// An error with these problems.
    public init(problems: [(field: String, message: String)]) { self.problems = problems }

    /// `title can't be blank; questions[2].choices must have at least 2 choices`.
    public var description: String {
        problems.map { "\($0.field) \($0.message)" }.joined(separator: "; ")
    }
}

/// Collects definition problems while parsing, to report all of them at once.
struct SurveyProblemList {
    private(set) var problems: [(field: String, message: String)] = []

    var count: Int { problems.count }

    mutating func add(_ field: String, _ message: String) { problems.append((field, message)) }
}
