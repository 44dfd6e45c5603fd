/// A user's answers to a survey, keyed by question id, as the SDK sends them and the server receives them:
/// `{"q1":"choice-a","q2":["a","b"],"q3":4,"q4":true,"q5":7.5,"q6":8,"q7":"free text"}`.
///
/// Values are kept exactly as given, right or wrong; `SurveyValidator` judges them. An absent or `null` answer
/// is an unanswered question.
///
/// ```swift
/// var answers = SurveyAnswers()
/// answers["visit"] = 4
/// answers["drinks"] = ["coffee", "tea"]
/// answers.json.encodedString  // {"visit":4,"drinks":["coffee","tea"]}
/// ```
public struct SurveyAnswers: Sendable, Equatable {
    /// The answers in the order they were given; each question id at most once.
    public private(set) var entries: [(questionID: String, value: JSON)]
    private var positions: [String: Int]

    /// No answers.
    public init() {
        entries = []
        positions = [:]
    }

    /// The answers of a JSON object. A key given twice keeps its last value, as `JSON` reads it.
    /// Anything but an object throws the one problem `SurveyValidator.validate(json:)` reports for it.
    public init(json: JSON) throws(SurveyAnswerProblem) {
        guard let pairs = json.objectValue else {
            throw SurveyAnswerProblem(
                questionID: nil, code: .notAnObject,
                message: "must be a JSON object of answers keyed by question id (not \(json.typeName))")
        }
        self.init()
        entries.reserveCapacity(pairs.count)
        for pair in pairs { self[pair.key] = pair.value }
    }

    /// The answer to question `questionID` (`.null` when explicitly unanswered), or nil when absent.
    /// Setting nil removes it.
    public subscript(questionID: String) -> JSON? {
        get { positions[questionID].map { entries[$0].value } }
        set {
            if let index = positions[questionID] {
                if let newValue {
                    entries[index].value = newValue
                } else {
                    entries.remove(at: index)
                    positions[questionID] = nil
                    for later in index..<entries.count { positions[entries[later].questionID] = later }
                }
            } else if let newValue {
                positions[questionID] = entries.count
                entries.append((questionID, newValue))
            }
        }
    }

    /// How many question ids have an entry (including `null` ones).
    public var count: Int { entries.count }

    /// The answers as a JSON object, in order; `SurveyAnswers(json:)` reads it back to an equal value.
    public var json: JSON { .object(entries.map { (key: $0.questionID, value: $0.value) }) }

    /// Equal when they have the same question ids with equal values, in any order.
    public static func == (lhs: SurveyAnswers, rhs: SurveyAnswers) -> Bool {
        lhs.count == rhs.count && lhs.entries.allSatisfy { rhs[$0.questionID] == $0.value }
    }
}
