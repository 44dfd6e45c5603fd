import HeraldModel
import Testing

/// The shared answer check: every type's rules and boundaries, the wizard's Next, determinism and hostile input.
@Suite struct SurveyValidatorTests {
    static let survey: SurveyDefinition = {
        let json: JSON = [
            "title": "Your visit",
            "questions": [
                [
                    "id": "drink", "text": "Favourite drink?", "type": "single_choice", "required": true,
                    "choices": [["id": "coffee", "text": "Coffee"], ["id": "tea", "text": "Tea"]],
                ],
                [
                    "id": "order", "text": "What did you order?", "type": "multiple_choice",
                    "choices": [
                        ["id": "a", "text": "A"], ["id": "b", "text": "B"], ["id": "c", "text": "C"],
                        ["id": "d", "text": "D"],
                    ],
                    "max_selected": 3,
                ],
                ["id": "stars", "text": "Rate us", "type": "rating", "required": true],
                ["id": "again", "text": "Come back?", "type": "boolean", "required": true],
                ["id": "spend", "text": "Spent?", "type": "number", "min": 0, "max": 1000],
                ["id": "nps", "text": "Recommend us?", "type": "slider", "required": true],
                ["id": "more", "text": "Anything else?", "type": "open_ended"],
            ],
        ]
        return try! SurveyDefinition(json: json)
    }()

    static let validator = SurveyValidator(survey)

    /// Answers to every question, all acceptable.
    static let good: JSON = [
        "drink": "coffee", "order": ["a", "b"], "stars": 4, "again": true, "spend": 7.5, "nps": 8, "more": "free text",
    ]

    /// `good` with `changes` (nil removes the answer).
    static func answers(_ changes: [(String, JSON?)] = []) -> SurveyAnswers {
        var answers = try! SurveyAnswers(json: good)
        for (id, value) in changes { answers[id] = value }
        return answers
    }

    @Test func acceptsGoodAnswers() throws {
        let answers = Self.answers()
        #expect(Self.validator.validate(answers).isEmpty)
        #expect(Self.survey.validate(answers).isEmpty)
        #expect(Self.validator.isComplete(answers))
        #expect(Self.validator.validate(json: Self.good).isEmpty)
    }

    /// One answer to one question and the problem it must get (nil: accepted).
    struct AnswerCase: Sendable, CustomTestStringConvertible {
        let question: String
        let value: JSON
        let expected: SurveyAnswerProblem.Code?
        init(_ question: String, _ value: JSON, _ expected: SurveyAnswerProblem.Code?) {
            self.question = question
            self.value = value
            self.expected = expected
        }
        var testDescription: String { "\(question) = \(value.encodedString) → \(expected?.rawValue ?? "ok")" }
    }

    static let cases: [AnswerCase] = [
        // single_choice
        .init("drink", "coffee", nil), .init("drink", "tea", nil), .init("drink", "Coffee", .unknownChoice),
        .init("drink", " coffee", .unknownChoice), .init("drink", ["coffee"], .wrongType),
        .init("drink", 1, .wrongType),
        .init("drink", true, .wrongType), .init("drink", ["id": "coffee"], .wrongType),
        // multiple_choice (optional, 1…3 of 4)
        .init("order", ["a"], nil), .init("order", ["d", "a", "c"], nil), .init("order", [], nil),
        .init("order", ["a", "b", "c", "d"], .tooManyChoices), .init("order", ["a", "a"], .duplicateChoice),
        .init("order", ["z"], .unknownChoice), .init("order", ["a", 1], .wrongType), .init("order", "a", .wrongType),
        .init("order", [nil], .wrongType), .init("order", [["a"]], .wrongType),
        // rating 1…5
        .init("stars", 1, nil), .init("stars", 5, nil), .init("stars", 3.0, nil), .init("stars", 0, .outOfRange),
        .init("stars", 6, .outOfRange), .init("stars", -1, .outOfRange), .init("stars", 3.5, .notWholeNumber),
        .init("stars", "3", .wrongType), .init("stars", true, .wrongType), .init("stars", [3], .wrongType),
        .init("stars", .int(.max), .outOfRange), .init("stars", .int(.min), .outOfRange),
        .init("stars", 1e300, .outOfRange), .init("stars", -1e300, .outOfRange),
        // boolean
        .init("again", true, nil), .init("again", false, nil), .init("again", "true", .wrongType),
        .init("again", 1, .wrongType), .init("again", 0, .wrongType), .init("again", [true], .wrongType),
        // number 0…1000
        .init("spend", 0, nil), .init("spend", 1000, nil), .init("spend", 999.99, nil),
        .init("spend", -0.01, .outOfRange),
        .init("spend", 1000.5, .outOfRange), .init("spend", -1, .outOfRange), .init("spend", "5", .wrongType),
        .init("spend", .double(.nan), .wrongType), .init("spend", .double(.infinity), .wrongType),
        .init("spend", .int(.max), .outOfRange),
        // slider 0…10, whole numbers
        .init("nps", 0, nil), .init("nps", 10, nil), .init("nps", 10.0, nil), .init("nps", 11, .outOfRange),
        .init("nps", -1, .outOfRange), .init("nps", 5.5, .notWholeNumber), .init("nps", "5", .wrongType),
        .init("nps", .double(-.infinity), .wrongType), .init("nps", false, .wrongType),
        // open_ended
        .init("more", "ok", nil), .init("more", "line one\nline two\ttabbed", nil), .init("more", "   ", nil),
        .init("more", "a\u{0}b", .controlCharacter), .init("more", "a\rb", .controlCharacter),
        .init("more", "bell\u{7}", .controlCharacter), .init("more", "a\u{85}b", .controlCharacter),
        .init("more", "del\u{7F}x", .controlCharacter), .init("more", 42, .wrongType),
        .init("more", ["text"], .wrongType),
        .init("more", .string(String(repeating: "x", count: 2000)), nil),
        .init("more", .string(String(repeating: "x", count: 2001)), .tooLong),
        .init("more", .string(String(repeating: "😀", count: 2000)), nil),
        .init("more", .string(String(repeating: "😀", count: 2001)), .tooLong),
        .init("more", .string(String(repeating: "👩🏻‍❤️‍💋‍👨🏼", count: 2000)), nil),
        .init("more", .string(String(repeating: "e\u{301}", count: 2000)), nil),
        .init("more", .string(String(repeating: "e\u{301}", count: 2001)), .tooLong),
        .init("more", .string(String(repeating: "🇫🇷", count: 2000)), nil),
        .init("more", .string("  " + String(repeating: "é", count: 2000) + " \n\u{3000}"), nil),
        .init("more", .string("a" + String(repeating: "\u{301}", count: 100_000)), .tooLong),
    ]

    @Test(arguments: cases) func checksEachAnswer(_ answerCase: AnswerCase) {
        let answers = Self.answers([(answerCase.question, answerCase.value)])
        let problems = Self.validator.validate(answers)
        #expect(problems.map(\.code) == (answerCase.expected.map { [$0] } ?? []))
        #expect(problems.allSatisfy { $0.questionID == answerCase.question })
        let index = Self.survey.questions.firstIndex { $0.id == answerCase.question }!
        #expect(Self.validator.canAdvance(past: index, with: answers) == (answerCase.expected == nil))
    }

    @Test(arguments: ["drink", "order", "stars", "again", "spend", "nps", "more"])
    func unansweredIsRequiredOnlyWhenRequired(_ id: String) {
        let required = Self.survey.question(id: id)!.required
        let blanks: [JSON?] = [nil, .null, "", " \n\t", []]
        for blank in blanks {
            let problems = Self.validator.validate(Self.answers([(id, blank)]))
            if required {
                #expect(problems == [SurveyAnswerProblem(questionID: id, code: .required, message: "is required")])
            } else {
                #expect(problems.isEmpty)
            }
        }
    }

    @Test func messagesReadAfterTheQuestionID() {
        let answers = Self.answers([
            ("drink", "milk"), ("order", ["a", "b", "c", "d"]), ("stars", 9), ("again", "yes"), ("spend", 2000.5),
            ("nps", 2.5), ("more", .string(String(repeating: "x", count: 2001))),
        ])
        #expect(
            Self.validator.validate(answers).map(\.description) == [
                "drink is not one of the question's choices",
                "order must select at most 3 choices",
                "stars must be from 1 to 5",
                "again must be true or false",
                "spend must be at most 1000",
                "nps must be a whole number",
                "more is too long (at most 2000 characters)",
            ])
    }

    @Test func customLimits() throws {
        let survey = SurveyDefinition(
            title: "Custom",
            questions: [
                SurveyQuestion(id: "r", text: "R", type: .rating, scale: 0...10),
                SurveyQuestion(id: "s", text: "S", type: .slider, scale: -5...5, allowsDecimals: true),
                SurveyQuestion(id: "n", text: "N", type: .number, minimum: -2.5),
                SurveyQuestion(id: "t", text: "T", type: .openEnded, maxLength: 3),
                SurveyQuestion(
                    id: "m", text: "M", type: .multipleChoice,
                    choices: [.init(id: "x", text: "X"), .init(id: "y", text: "Y"), .init(id: "z", text: "Z")],
                    minSelected: 2, maxSelected: 2),
                SurveyQuestion(id: "big", text: "B", type: .openEnded, maxLength: 1_000_000),
            ])
        let validator = SurveyValidator(survey)
        func codes(_ id: String, _ value: JSON) -> [String] {
            var answers = SurveyAnswers()
            answers[id] = value
            return validator.validate(answers).map(\.code.rawValue)
        }
        #expect(codes("r", 0) == [] && codes("r", 10) == [] && codes("r", 11) == ["out_of_range"])
        #expect(codes("s", -5) == [] && codes("s", 4.75) == [] && codes("s", 5.01) == ["out_of_range"])
        #expect(codes("n", -2.5) == [] && codes("n", 1e300) == [] && codes("n", -2.6) == ["out_of_range"])
        #expect(codes("t", " abc ") == [] && codes("t", "abcd") == ["too_long"])
        #expect(codes("m", ["x", "z"]) == [] && codes("m", ["x"]) == ["too_few_choices"])
        #expect(codes("m", ["x", "y", "z"]) == ["too_many_choices"])
        #expect(codes("big", .string(String(repeating: "x", count: 2001))) == ["too_long"])
        #expect(
            validator.validate(try SurveyAnswers(json: ["m": ["x"]])).map(\.message) == [
                "must select at least 2 choices"
            ])
    }

    @Test func unknownQuestionIDsComeLastInByteOrder() throws {
        let answers = try SurveyAnswers(json: ["zeta": 1, "drink": "milk", "Zeta": nil, "éclair": "x", "alpha": []])
        let problems = Self.validator.validate(answers)
        #expect(
            problems.map(\.description) == [
                "drink is not one of the question's choices", "stars is required", "again is required",
                "nps is required", "Zeta is not a question of this survey", "alpha is not a question of this survey",
                "zeta is not a question of this survey", "éclair is not a question of this survey",
            ])
        #expect(problems.last?.code == .unknownQuestion)
    }

    @Test(arguments: [JSON.null, [], ["drink"], "drink", 5, true, 1.5])
    func answersThatAreNotAnObjectGetOneProblem(_ json: JSON) {
        let problems = Self.validator.validate(json: json)
        #expect(problems.count == 1)
        #expect(problems.first?.code == .notAnObject)
        #expect(problems.first?.questionID == nil)
        #expect(problems.first?.field == "answers")
        #expect(throws: SurveyAnswerProblem.self) { try SurveyAnswers(json: json) }
    }

    @Test func wizardAdvancesOnlyPastAcceptableAnswers() {
        var answers = SurveyAnswers()
        #expect(!Self.validator.canAdvance(past: 0, with: answers))
        answers["drink"] = "milk"
        #expect(!Self.validator.canAdvance(past: 0, with: answers))
        #expect(Self.validator.problem(forQuestionAt: 0, in: answers)?.code == .unknownChoice)
        answers["drink"] = "tea"
        #expect(Self.validator.canAdvance(past: 0, with: answers))
        #expect(Self.validator.canAdvance(past: 1, with: answers))  // optional, unanswered
        answers["order"] = ["a", "a"]
        #expect(!Self.validator.canAdvance(past: 1, with: answers))  // optional, but answered wrongly
        answers["order"] = nil
        #expect(!Self.validator.canAdvance(past: 2, with: answers))
        answers["stars"] = 5
        answers["again"] = false
        answers["nps"] = 0
        #expect(Self.validator.isComplete(answers))
        answers["extra"] = "x"
        #expect(!Self.validator.isComplete(answers))
        #expect(!Self.validator.canAdvance(past: -1, with: answers))
        #expect(!Self.validator.canAdvance(past: 7, with: answers))
        #expect(Self.validator.problem(forQuestionAt: 99, in: answers) == nil)
    }

    @Test func normalizedIsWhatTheServerStores() throws {
        let answers = try SurveyAnswers(
            json: [
                "more": "  hello \n", "stars": 3.0, "extra": 1, "nps": 10.0, "drink": "tea", "order": [], "again": nil,
            ])
        let normalized = Self.validator.normalized(answers)
        #expect(normalized.json.encodedString == #"{"drink":"tea","stars":3,"nps":10,"more":"hello"}"#)
        #expect(Self.validator.normalized(normalized) == normalized)
    }

    @Test func answersRoundTripThroughJSON() throws {
        let text = #"{"q1":"choice-a","q2":["a","b"],"q3":4,"q4":true,"q5":7.5,"q6":8,"q7":"free text","q8":null}"#
        let answers = try SurveyAnswers(json: JSON.parse(text))
        #expect(answers.count == 8)
        #expect(answers["q3"] == 4 && answers["q8"] == .null && answers["q9"] == nil)
        #expect(answers.json.encodedString == text)
        #expect(try SurveyAnswers(json: answers.json) == answers)
        // (A JSON text naming a key twice is refused by the parser; a value built with one keeps the last.)
        let duplicate = try SurveyAnswers(json: .object([("q", 1), ("r", 2), ("q", 3)]))
        #expect(duplicate.count == 2 && duplicate["q"] == 3)
        var edited = answers
        edited["q1"] = nil
        edited["q4"] = false
        #expect(edited.entries.map(\.questionID) == ["q2", "q3", "q4", "q5", "q6", "q7", "q8"])
        #expect(edited["q4"] == false && edited["q1"] == nil)
        #expect(edited != answers)
    }

    @Test func sameAnswersInAnyOrderGiveTheSameProblems() throws {
        let text = #"{"x":1,"drink":"milk","order":["a","a"],"stars":3.5,"w":null,"spend":"1","more":"\u0000"}"#
        let forwards = try SurveyAnswers(json: JSON.parse(text))
        var backwards = SurveyAnswers()
        for entry in forwards.entries.reversed() { backwards[entry.questionID] = entry.value }
        let expected = Self.validator.validate(forwards)
        #expect(expected.count == 9)
        #expect(Self.validator.validate(backwards) == expected)
        #expect(SurveyValidator(Self.survey).validate(forwards) == expected)
        #expect(Self.validator.validate(json: try JSON.parse(text)) == expected)
    }

    @Test func unsupportedTypeRefusesAnyAnswer() {
        let survey = SurveyDefinition(
            title: "Future",
            questions: [SurveyQuestion(id: "m", text: "M", type: SurveyQuestionType(rawValue: "matrix"))])
        let validator = SurveyValidator(survey)
        #expect(validator.validate(SurveyAnswers()).isEmpty)
        var answers = SurveyAnswers()
        answers["m"] = 1
        #expect(validator.validate(answers).map(\.code) == [.unsupportedType])
    }

    /// Every JSON type, nested and huge, to every question: problems, never a crash.
    @Test func hostileAnswersNeverCrash() throws {
        let nestedArray = try JSON.parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64))
        let nestedObject = try JSON.parse(
            String(repeating: #"{"a":"#, count: 63) + "[]" + String(repeating: "}", count: 63))
        let hugeChoices = JSON.array(Array(repeating: "a", count: 200_000))
        let hugeUnknown = JSON.array((0..<200_000).map { .string("c\($0)") })
        let hugeText = JSON.string(String(repeating: "ab\u{301}😀 ", count: 500_000))
        let values: [JSON] = [
            nestedArray, nestedObject, hugeChoices, hugeUnknown, hugeText, .int(.max), .int(.min), 1e308, -1e308,
            .double(.nan), .double(.infinity), .double(-0.0), 0.1, [:], [nil], "\u{0}", "\u{FEFF}", "\u{202E}x",
        ]
        for value in values {
            for question in Self.survey.questions {
                let answers = Self.answers([(question.id, value)])
                let problems = Self.validator.validate(answers)
                #expect(problems.count <= 1)
                #expect(problems == Self.validator.validate(answers))
                _ = Self.validator.normalized(answers)
            }
            _ = Self.validator.validate(json: value)
        }
        let oddKeys = try SurveyAnswers(
            json: .object((0..<50_000).map { (key: "k\($0)", value: .int(Int64($0))) } + [("", 1), ("\u{0}", 2)]))
        let problems = Self.validator.validate(oddKeys)
        #expect(problems.count == 4 + 50_002)
        #expect(problems.filter { $0.code == .unknownQuestion }.first?.questionID == "")
    }
}
