import HeraldModel
import Testing

/// The admin API's survey body: parsing, every kind of problem, round trips and hostile input.
@Suite struct SurveyDefinitionTests {
    static let fullSurvey = """
        {"title":" Your visit ","questions":[
          {"id":"drink","text":"Favourite drink?","type":"single_choice","required":true,
           "choices":[{"id":"coffee","text":"Coffee"},{"id":"tea","text":"Tea"}]},
          {"id":"order","text":"What did you order?","type":"multiple_choice","required":false,
           "choices":[{"id":"a","text":"A"},{"id":"b","text":"B"},{"id":"c","text":"C"}],
           "min_selected":1,"max_selected":2},
          {"id":"stars","text":"Rate us","type":"rating","required":true,"min":0,"max":10},
          {"id":"again","text":"Would you come back?","type":"boolean","required":true},
          {"id":"spend","text":"How much did you spend?","type":"number","min":0,"max":999.5},
          {"id":"nps","text":"Recommend us?","type":"slider","required":true,"allow_decimals":true},
          {"id":"more","text":"Anything else?","type":"open_ended","required":false,"max_length":500,
           "colour":"ignored"}
        ]}
        """

    /// The problems `init(json:)` throws for `json`, as `field: message` lines.
    static func problems(_ json: JSON) -> [String] {
        do {
            _ = try SurveyDefinition(json: json)
            return []
        } catch {
            return error.problems.map { "\($0.field): \($0.message)" }
        }
    }

    static func problems(_ text: String) throws -> [String] { problems(try JSON.parse(text)) }

    /// A one-question survey with `question`'s keys.
    static func survey(_ question: JSON) -> JSON { ["title": "T", "questions": [question]] }

    @Test func parsesEveryTypeAndItsLimits() throws {
        let survey = try SurveyDefinition(json: JSON.parse(Self.fullSurvey))
        #expect(survey.title == "Your visit")
        #expect(survey.questions.map(\.id) == ["drink", "order", "stars", "again", "spend", "nps", "more"])
        #expect(survey.questions.map(\.type) == SurveyQuestionType.allKnown)
        #expect(survey.questions.map(\.required) == [true, false, true, true, false, true, false])
        #expect(
            survey.questions[0].choices == [SurveyChoice(id: "coffee", text: "Coffee"), .init(id: "tea", text: "Tea")])
        #expect(survey.questions[1].minSelected == 1 && survey.questions[1].maxSelected == 2)
        #expect(survey.questions[2].scale == 0...10 && survey.questions[2].effectiveScale == 0...10)
        #expect(survey.questions[3].effectiveScale == nil)
        #expect(survey.questions[4].minimum == 0 && survey.questions[4].maximum == 999.5)
        #expect(survey.questions[5].allowsDecimals && survey.questions[5].effectiveScale == 0...10)
        #expect(survey.questions[6].maxLength == 500 && survey.questions[6].effectiveMaxLength == 500)
        #expect(survey.question(id: "spend")?.text == "How much did you spend?")
        #expect(survey.question(id: "nope") == nil)
        #expect(survey.validate().isEmpty)
    }

    @Test func defaultsWhenLimitsAreLeftOut() throws {
        let survey = try SurveyDefinition(
            json: [
                "title": "T",
                "questions": [
                    ["id": "r", "text": "R", "type": "rating"], ["id": "s", "text": "S", "type": "slider", "max": 20],
                    ["id": "o", "text": "O", "type": "open_ended", "required": nil],
                    ["id": "b", "text": "B", "type": "boolean", "choices": [], "min": nil],
                ],
            ])
        #expect(survey.questions[0].required == false)
        #expect(survey.questions[0].scale == nil && survey.questions[0].effectiveScale == 1...5)
        #expect(survey.questions[1].effectiveScale == 0...20)
        #expect(survey.questions[2].maxLength == 2000)
        #expect(survey.questions[3].choices.isEmpty)
        #expect(SurveyQuestion.defaultScale(for: .rating) == 1...5)
        #expect(SurveyQuestion.defaultScale(for: .slider) == 0...10)
        #expect(SurveyQuestion.defaultScale(for: .number) == nil)
    }

    @Test("whole-number ids are read as their digits, and answers are keyed by them")
    func numericIDsAreText() throws {
        let survey = try SurveyDefinition(
            json: JSON.parse(
                #"{"title":"T","questions":[{"id":1,"text":"Which?","type":"single_choice","choices":[{"id":10,"text":"A"},{"id":"b","text":"B"}]}]}"#
            ))
        #expect(survey.questions.map(\.id) == ["1"])
        #expect(survey.questions[0].choices.map(\.id) == ["10", "b"])
        #expect(SurveyValidator(survey).validate(json: ["1": "10"]).isEmpty)
        // 7 and "7" are one id: the second is a duplicate, as two "7"s are.
        for second in [JSON.int(7), .string("7")] {
            let json: JSON = [
                "title": "T",
                "questions": [
                    ["id": 7, "text": "A?", "type": "boolean"], ["id": second, "text": "B?", "type": "boolean"],
                ],
            ]
            #expect(Self.problems(json) == ["questions[1].id: duplicates questions[0].id"])
        }
    }

    @Test func jsonRoundTrips() throws {
        let survey = try SurveyDefinition(json: JSON.parse(Self.fullSurvey))
        let again = try SurveyDefinition(json: survey.json)
        #expect(again == survey)
        let reparsed = try SurveyDefinition(json: JSON.parse(survey.json.encodedString))
        #expect(reparsed == survey)
        #expect(reparsed.json.encodedString == survey.json.encodedString)
        #expect(
            survey.questions[2].json.encodedString
                == #"{"id":"stars","text":"Rate us","type":"rating","required":true,"min":0,"max":10}"#)
        #expect(
            survey.questions[0].json.encodedString
                == #"{"id":"drink","text":"Favourite drink?","type":"single_choice","required":true,"#
                + #""choices":[{"id":"coffee","text":"Coffee"},{"id":"tea","text":"Tea"}]}"#)
    }

    @Test func builtInCodeRoundTripsAndValidates() throws {
        let survey = SurveyDefinition(
            title: "Built",
            questions: [
                SurveyQuestion(id: "r", text: "Rate", type: .rating, required: true, scale: 1...10),
                SurveyQuestion(id: "n", text: "Number", type: .number, minimum: -2.5, maximum: 7),
                SurveyQuestion(
                    id: "m", text: "Pick", type: .multipleChoice,
                    choices: [.init(id: "x", text: "X"), .init(id: "y", text: "Y")], minSelected: 0, maxSelected: 1),
                SurveyQuestion(id: "t", text: "Say", type: .openEnded, maxLength: 10),
            ])
        #expect(survey.validate().isEmpty)
        #expect(try SurveyDefinition(json: survey.json) == survey)
    }

    @Test func validateReportsWhatCodeGotWrong() {
        let survey = SurveyDefinition(
            title: "",
            questions: [
                SurveyQuestion(id: "r", text: "Rate", type: .rating, scale: 0...50),
                SurveyQuestion(id: "r", text: "Say", type: .openEnded, maxLength: 5000),
                SurveyQuestion(id: "b", text: "Yes?", type: .boolean, choices: [.init(id: "x", text: "X")]),
                SurveyQuestion(id: "x", text: "?", type: SurveyQuestionType(rawValue: "matrix")),
                SurveyQuestion(id: "y", text: "?", type: .boolean, maxLength: 10, minSelected: 1),
            ])
        let problems = survey.validate().map { "\($0.field): \($0.message)" }
        #expect(
            problems == [
                "title: can't be blank",
                "questions[0].max: must be from 0 to 10",
                "questions[1].id: duplicates questions[0].id",
                "questions[1].max_length: must be from 1 to 2000",
                "questions[2].choices: only applies to single_choice and multiple_choice questions",
                "questions[3].type: is not a question type (one of single_choice, multiple_choice, rating, boolean, "
                    + "number, slider, open_ended)",
                "questions[4].max_length: only applies to open_ended questions",
                "questions[4].min_selected: only applies to multiple_choice questions",
            ])
    }

    /// One broken body and the problems it must produce (exactly, in order).
    struct BadCase: Sendable, CustomTestStringConvertible {
        let name: String
        let json: JSON
        let expected: [String]
        var testDescription: String { name }
    }

    static let question: JSON = ["id": "q", "text": "Q?", "type": "boolean"]
    static let choices: JSON = [["id": "a", "text": "A"], ["id": "b", "text": "B"], ["id": "c", "text": "C"]]

    static func with(_ base: JSON, _ changes: [(String, JSON?)]) -> JSON {
        var pairs = base.objectValue ?? []
        for (key, value) in changes {
            pairs.removeAll { $0.key == key }
            if let value { pairs.append((key, value)) }
        }
        return .object(pairs)
    }

    static func one(_ changes: (String, JSON?)...) -> JSON { survey(with(question, changes)) }

    static let badCases: [BadCase] = [
        BadCase(name: "an array", json: [], expected: ["survey: must be a JSON object"]),
        BadCase(name: "a string", json: "survey", expected: ["survey: must be a JSON object"]),
        BadCase(name: "null", json: nil, expected: ["survey: must be a JSON object"]),
        BadCase(name: "no title", json: ["questions": [question]], expected: ["title: can't be blank"]),
        BadCase(
            name: "blank title", json: ["title": " \n\t ", "questions": [question]], expected: ["title: can't be blank"]
        ),
        BadCase(
            name: "numeric title", json: ["title": 5, "questions": [question]], expected: ["title: must be a string"]),
        BadCase(
            name: "long title", json: ["title": .string(String(repeating: "é", count: 201)), "questions": [question]],
            expected: ["title: is too long (at most 200 characters)"]),
        BadCase(
            name: "title with a control character", json: ["title": "a\u{7}b", "questions": [question]],
            expected: ["title: must not contain control characters other than tab and newline"]),
        BadCase(name: "no questions", json: ["title": "T"], expected: ["questions: must have at least 1 question"]),
        BadCase(
            name: "empty questions", json: ["title": "T", "questions": []],
            expected: ["questions: must have at least 1 question"]),
        BadCase(
            name: "questions an object", json: ["title": "T", "questions": ["q": question]],
            expected: ["questions: must be a list of questions"]),
        BadCase(
            name: "101 questions",
            json: [
                "title": "T",
                "questions": .array((0...100).map { with(question, [("id", .string("q\($0)"))]) }),
            ],
            expected: ["questions: must have at most 100 questions (has 101)"]),
        BadCase(
            name: "a question that is a string", json: ["title": "T", "questions": ["q"]],
            expected: ["questions[0]: must be an object"]),
        BadCase(name: "no id", json: one(("id", nil)), expected: ["questions[0].id: can't be blank"]),
        BadCase(name: "empty id", json: one(("id", "")), expected: ["questions[0].id: can't be blank"]),
        BadCase(name: "negative numeric id", json: one(("id", -7)), expected: ["questions[0].id: must be a string"]),
        BadCase(name: "fractional id", json: one(("id", 7.5)), expected: ["questions[0].id: must be a string"]),
        BadCase(
            name: "id with a space", json: one(("id", "q 1")),
            expected: ["questions[0].id: must be 1 to 64 characters from A-Z, a-z, 0-9, _ and -"]),
        BadCase(
            name: "accented id", json: one(("id", "qé")),
            expected: ["questions[0].id: must be 1 to 64 characters from A-Z, a-z, 0-9, _ and -"]),
        BadCase(
            name: "65-character id", json: one(("id", .string(String(repeating: "a", count: 65)))),
            expected: ["questions[0].id: must be 1 to 64 characters from A-Z, a-z, 0-9, _ and -"]),
        BadCase(
            name: "duplicate question ids",
            json: ["title": "T", "questions": [question, with(question, [("text", "Again?")]), question]],
            expected: ["questions[1].id: duplicates questions[0].id", "questions[2].id: duplicates questions[0].id"]),
        BadCase(name: "no text", json: one(("text", nil)), expected: ["questions[0].text: can't be blank"]),
        BadCase(name: "blank text", json: one(("text", "\u{3000}")), expected: ["questions[0].text: can't be blank"]),
        BadCase(name: "text a list", json: one(("text", ["a"])), expected: ["questions[0].text: must be a string"]),
        BadCase(
            name: "long text", json: one(("text", .string(String(repeating: "x", count: 1001)))),
            expected: ["questions[0].text: is too long (at most 1000 characters)"]),
        BadCase(name: "no type", json: one(("type", nil)), expected: ["questions[0].type: can't be blank"]),
        BadCase(name: "numeric type", json: one(("type", 3)), expected: ["questions[0].type: must be a string"]),
        BadCase(
            name: "unknown type", json: one(("type", "dropdown")),
            expected: [
                "questions[0].type: is not a question type (one of single_choice, multiple_choice, rating, boolean, "
                    + "number, slider, open_ended)"
            ]),
        BadCase(
            name: "type in capitals", json: one(("type", "BOOLEAN")),
            expected: [
                "questions[0].type: is not a question type (one of single_choice, multiple_choice, rating, boolean, "
                    + "number, slider, open_ended)"
            ]),
        BadCase(
            name: "required as a string", json: one(("required", "yes")),
            expected: ["questions[0].required: must be true or false"]),
        BadCase(
            name: "choice question without choices", json: one(("type", "single_choice")),
            expected: ["questions[0].choices: must have at least 2 choices"]),
        BadCase(
            name: "one choice", json: one(("type", "multiple_choice"), ("choices", [["id": "a", "text": "A"]])),
            expected: ["questions[0].choices: must have at least 2 choices"]),
        BadCase(
            name: "no choices", json: one(("type", "single_choice"), ("choices", [])),
            expected: ["questions[0].choices: must have at least 2 choices"]),
        BadCase(
            name: "51 choices",
            json: one(
                ("type", "single_choice"),
                ("choices", .array((0...50).map { ["id": .string("c\($0)"), "text": "C"] }))),
            expected: ["questions[0].choices: must have at most 50 choices (has 51)"]),
        BadCase(
            name: "choices a string", json: one(("type", "single_choice"), ("choices", "a,b")),
            expected: ["questions[0].choices: must be a list of choices"]),
        BadCase(
            name: "a choice that is a string",
            json: one(("type", "single_choice"), ("choices", ["a", ["id": "b", "text": "B"]])),
            expected: ["questions[0].choices[0]: must be an object"]),
        BadCase(
            name: "duplicate choice ids",
            json: one(
                ("type", "single_choice"), ("choices", [["id": "a", "text": "A"], ["id": "a", "text": "Also A"]])),
            expected: ["questions[0].choices[1].id: duplicates questions[0].choices[0].id"]),
        BadCase(
            name: "choice without text or a good id",
            json: one(("type", "single_choice"), ("choices", [["id": "a b", "text": ""], ["id": "b", "text": 2]])),
            expected: [
                "questions[0].choices[0].id: must be 1 to 64 characters from A-Z, a-z, 0-9, _ and -",
                "questions[0].choices[0].text: can't be blank", "questions[0].choices[1].text: must be a string",
            ]),
        BadCase(
            name: "choices on a rating", json: one(("type", "rating"), ("choices", choices)),
            expected: ["questions[0].choices: only applies to single_choice and multiple_choice questions"]),
        BadCase(
            name: "rating scale past 10", json: one(("type", "rating"), ("min", 0), ("max", 50)),
            expected: ["questions[0].max: must be from 0 to 10"]),
        BadCase(
            name: "rating scale of one point", json: one(("type", "rating"), ("min", 5)),
            expected: ["questions[0].max: must be greater than min (5)"]),
        BadCase(
            name: "rating min with a fraction", json: one(("type", "rating"), ("min", 1.5)),
            expected: ["questions[0].min: must be a whole number"]),
        BadCase(
            name: "slider max as a string", json: one(("type", "slider"), ("max", "10")),
            expected: ["questions[0].max: must be a whole number"]),
        BadCase(
            name: "slider decimals as a number", json: one(("type", "slider"), ("allow_decimals", 1)),
            expected: ["questions[0].allow_decimals: must be true or false"]),
        BadCase(
            name: "number min above max", json: one(("type", "number"), ("min", 10), ("max", 1.5)),
            expected: ["questions[0].max: must be at least min (10)"]),
        BadCase(
            name: "number min as text", json: one(("type", "number"), ("min", "low")),
            expected: ["questions[0].min: must be a number"]),
        BadCase(
            name: "max_length 2001", json: one(("type", "open_ended"), ("max_length", 2001)),
            expected: ["questions[0].max_length: must be from 1 to 2000"]),
        BadCase(
            name: "max_length 0", json: one(("type", "open_ended"), ("max_length", 0)),
            expected: ["questions[0].max_length: must be from 1 to 2000"]),
        BadCase(
            name: "selection bounds past the choices",
            json: one(("type", "multiple_choice"), ("choices", choices), ("min_selected", 4), ("max_selected", 5)),
            expected: [
                "questions[0].min_selected: must be from 0 to 3", "questions[0].max_selected: must be from 1 to 3",
            ]),
        BadCase(
            name: "min_selected above max_selected",
            json: one(("type", "multiple_choice"), ("choices", choices), ("min_selected", 3), ("max_selected", 2)),
            expected: ["questions[0].max_selected: must be at least min_selected (3)"]),
        BadCase(
            name: "limits of other types",
            json: one(("min", 1), ("max", 2), ("allow_decimals", true), ("max_length", 5), ("min_selected", 1)),
            expected: [
                "questions[0].min: only applies to rating, slider and number questions",
                "questions[0].max: only applies to rating, slider and number questions",
                "questions[0].allow_decimals: only applies to slider questions",
                "questions[0].max_length: only applies to open_ended questions",
                "questions[0].min_selected: only applies to multiple_choice questions",
            ]),
    ]

    @Test(arguments: badCases) func refuses(_ bad: BadCase) {
        #expect(Self.problems(bad.json) == bad.expected)
    }

    @Test func reportsEveryProblemAtOnceInDocumentOrder() throws {
        let problems = try Self.problems(
            """
            {"title":"","questions":[
              {"id":"q1","text":"","type":"rating","required":"no"},
              {"id":"q1","text":"Pick","type":"single_choice","choices":[{"id":"a","text":"A"}]},
              7,
              {"id":"bad id","text":"Fine","type":"bool"}
            ]}
            """)
        #expect(
            problems == [
                "title: can't be blank",
                "questions[0].text: can't be blank",
                "questions[0].required: must be true or false",
                "questions[1].id: duplicates questions[0].id",
                "questions[1].choices: must have at least 2 choices",
                "questions[2]: must be an object",
                "questions[3].id: must be 1 to 64 characters from A-Z, a-z, 0-9, _ and -",
                "questions[3].type: is not a question type (one of single_choice, multiple_choice, rating, boolean, "
                    + "number, slider, open_ended)",
            ])
        #expect(try Self.problems(Self.fullSurvey).isEmpty)
    }

    @Test func errorDescriptionListsProblems() {
        do {
            _ = try SurveyDefinition(json: ["title": "", "questions": []])
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "title can't be blank; questions must have at least 1 question")
        }
    }

    @Test func textsAreTrimmedAndUnicodeCountsAsCharacters() throws {
        let title = String(repeating: "👨‍👩‍👧‍👦", count: 200)
        let survey = try SurveyDefinition(
            json: Self.with(
                Self.survey(["id": "q", "text": "\n  Line one\nline two\t ", "type": "boolean"]),
                [("title", .string(title))]))
        #expect(survey.title == title)
        #expect(survey.questions[0].text == "Line one\nline two")
    }

    @Test func questionTypeIsAnOpenWireConstant() {
        #expect(
            SurveyQuestionType.allKnown.map(\.rawValue) == [
                "single_choice", "multiple_choice", "rating", "boolean", "number", "slider", "open_ended",
            ])
        #expect(SurveyQuestionType(rawValue: "slider") == .slider)
        #expect(SurveyQuestionType(rawValue: "matrix").isKnown == false)
        #expect(SurveyQuestionType.singleChoice.isChoice && !SurveyQuestionType.rating.isChoice)
        #expect("\(SurveyQuestionType.openEnded)" == "open_ended")
    }

    /// Every JSON type in every field: no crash, only problems.
    @Test func wrongTypesEverywhereNeverCrash() throws {
        let nested = try JSON.parse(String(repeating: "[", count: 60) + String(repeating: "]", count: 60))
        let deepObject = try JSON.parse(
            String(repeating: #"{"a":"#, count: 60) + "1" + String(repeating: "}", count: 60))
        let values: [JSON] = [
            nil, true, false, 0, -1, 1.5, 1e300, "", "x", [], ["x"], [:], ["k": "v"], nested, deepObject,
            .string(String(repeating: "z", count: 100_000)), .int(.max), .int(.min),
        ]
        let keys = [
            "id", "text", "type", "required", "choices", "min", "max", "allow_decimals", "max_length", "min_selected",
            "max_selected",
        ]
        for type in SurveyQuestionType.allKnown.map(\.rawValue) + ["other"] {
            let base: JSON = ["id": "q", "text": "Q", "type": .string(type), "choices": Self.choices]
            for key in keys {
                for value in values {
                    let json = Self.survey(Self.with(base, [(key, value)]))
                    let first = Self.problems(json)
                    #expect(first == Self.problems(json))
                }
            }
        }
        for value in values {
            _ = Self.problems(value)
            _ = Self.problems(["title": value, "questions": value])
            _ = Self.problems(["title": "T", "questions": [value, value]])
            _ = Self.problems(Self.one(("type", "single_choice"), ("choices", [value, value])))
        }
    }

    @Test func hugeInputIsRefusedQuickly() {
        let manyQuestions = JSON.array(Array(repeating: Self.question, count: 200_000))
        #expect(
            Self.problems(["title": "T", "questions": manyQuestions]) == [
                "questions: must have at most 100 questions (has 200000)"
            ])
        let manyChoices = JSON.array(Array(repeating: ["id": "a", "text": "A"], count: 200_000))
        #expect(
            Self.problems(Self.one(("type", "multiple_choice"), ("choices", manyChoices))) == [
                "questions[0].choices: must have at most 50 choices (has 200000)"
            ])
        let hugeTitle = JSON.string(String(repeating: "t", count: 5_000_000))
        #expect(
            Self.problems(["title": hugeTitle, "questions": [Self.question]]) == [
                "title: is too long (at most 200 characters)"
            ])
    }
}
