extension SurveyDefinition {
    /// Parses and checks the admin API's survey body:
    /// `{"title","questions":[{"id","text","type","required","choices"?:[{"id","text"}]}]}`, plus the optional
    /// limits `min`, `max` (rating, slider, number), `allow_decimals` (slider), `max_length` (open_ended),
    /// `min_selected`, `max_selected` (multiple_choice). Keys it doesn't know are ignored, so a definition from a
    /// newer server still parses; texts are kept trimmed.
    ///
    /// Throws every problem at once, each on its field's path: `survey` (not an object), `title`, `questions`,
    /// `questions[i]`, `questions[i].<key>`, `questions[i].choices[j].id` and `.text`.
    public init(json: JSON) throws(SurveyDefinitionError) {
        guard json.objectValue != nil else {
            throw SurveyDefinitionError(problems: [("survey", "must be a JSON object")])
        }
        var problems = SurveyProblemList()
        let title = SurveyQuestion.parseText(
            json["title"], at: "title", maximumLength: Self.maximumTitleLength, into: &problems)
        var questions: [SurveyQuestion] = []
        switch json["questions"] {
        case nil, .null:
            problems.add("questions", "must have at least 1 question")
        case .array(let items) where items.isEmpty:
            problems.add("questions", "must have at least 1 question")
        case .array(let items) where items.count > Self.maximumQuestions:
            problems.add("questions", "must have at most \(Self.maximumQuestions) questions (has \(items.count))")
        case .array(let items):
            var firstIndex: [String: Int] = [:]
            for (index, item) in items.enumerated() {
                let path = "questions[\(index)]"
                if let id = SurveyQuestion.identifier(item["id"]) {
                    if let first = firstIndex[id] {
                        problems.add("\(path).id", "duplicates questions[\(first)].id")
                    } else {
                        firstIndex[id] = index
                    }
                }
                if let question = SurveyQuestion.parse(item, at: path, into: &problems) {
                    questions.append(question)
                }
            }
        default:
            problems.add("questions", "must be a list of questions")
        }
        guard problems.count == 0, let title else { throw SurveyDefinitionError(problems: problems.problems) }
        self.init(title: String(title), questions: questions)
    }

    /// The definition in the admin API's shape; `SurveyDefinition(json:)` reads it back to an equal value.
    public var json: JSON {
        .object([("title", .string(title)), ("questions", .array(questions.map(\.json)))])
    }
}
