import HeraldModel
import HeraldAPI
import HeraldTesting
import Testing

/// `POST /api/admin/surveys/validate`: the console's card preview gets the very problems the SDK's validator and
/// the server's survey answers give, for answers to the questions sent with them.
@Suite("Survey check")
struct SurveyCheckTests {
    private static let questions: JSON = [
        ["id": "visit", "text": "How was your visit?", "type": "rating", "required": true, "min": 1, "max": 5],
        [
            "id": "sides", "text": "Which sides?", "type": "multiple_choice", "max_selected": 2,
            "choices": [
                ["id": "fries", "text": "Fries"], ["id": "salad", "text": "Salad"], ["id": "rings", "text": "Rings"],
            ],
        ],
        ["id": "note", "text": "Anything else?", "type": "open_ended", "max_length": 5],
    ]

    private func check(_ herald: LiveHerald, _ answers: JSON?) throws -> TestHTTPClient.Response {
        var body: [(key: String, value: JSON)] = [("questions", Self.questions)]
        if let answers { body.append(("answers", answers)) }
        return try herald.admin("POST", "/api/admin/surveys/validate", json: JSON.object(body).encodedString)
    }

    @Test func answersTheValidatorsProblemsInQuestionOrder() throws {
        let herald = try LiveHerald()
        let answers: JSON = [
            ["question_id": "note", "value": "far too long"], ["question_id": "visit", "value": 7],
            ["question_id": "sides", "value": ["fries", "salad", "rings"]], ["question_id": "extra", "value": 1],
        ]
        let response = try check(herald, answers)
        #expect(response.status == 200, "\(response)")
        let definition = try SurveyDefinition(json: ["title": "Preview", "questions": Self.questions])
        let expected = SurveyValidator(definition).validate(
            try #require(DeviceEvent.surveyAnswers(inData: ["answers": answers])))
        #expect(response.value == ["problems": .array(expected.map(\.json))])
        #expect(
            response.value?["problems"]?.arrayValue?.compactMap { $0["code"]?.stringValue }
                == ["out_of_range", "too_many_choices", "too_long", "unknown_question"])
        #expect(
            response.value?["problems"]?.arrayValue?.first == [
                "question_id": "visit", "code": "out_of_range", "message": "must be from 1 to 5",
            ])
    }

    @Test func acceptableAnswersHaveNoProblemAndNoAnswersOnlyTheRequiredOne() throws {
        let herald = try LiveHerald()
        let good = try check(
            herald, [["question_id": "visit", "value": 4], ["question_id": "note", "value": " ok "]])
        #expect(good.status == 200)
        #expect(good.value == ["problems": []])
        for none in [nil, JSON.null, []] as [JSON?] {
            let response = try check(herald, none)
            #expect(response.value?["problems"]?.arrayValue?.map { $0["question_id"] } == ["visit"], "\(response)")
            #expect(response.value?["problems"]?.arrayValue?.first?["code"] == "required")
        }
    }

    @Test func badQuestionsOrAnswersAre422WithTheirPaths() throws {
        let herald = try LiveHerald()
        let client = herald.client()
        let headers = [("Authorization", "Bearer \(herald.adminToken)")]
        let path = "/api/admin/surveys/validate"
        expectError(
            try client.request("POST", path, headers: headers, json: #"{"questions":[{"id":"q","type":"rating"}]}"#),
            422, "questions[0].text", "can't be blank")
        expectError(
            try client.request("POST", path, headers: headers, json: #"{}"#), 422, "questions",
            "must have at least 1 question")
        expectError(
            try client.request(
                "POST", path, headers: headers,
                json: #"{"questions":\#(Self.questions.encodedString),"answers":{"visit":3}}"#),
            422, ["answers"])
        expectError(
            try client.request(
                "POST", path, headers: headers, json: #"{"questions":\#(Self.questions.encodedString),"answers":[3]}"#),
            422, ["answers"])
        expectError(
            try client.request(
                "POST", path, headers: headers, json: #"{"questions":\#(Self.questions.encodedString),"why":1}"#),
            422, "why", "is not a field of this request")
        expectError(try client.request("POST", path, headers: headers, json: "[1]"), 400, ["base"])
        let unsigned = try client.request("POST", path, json: #"{"questions":\#(Self.questions.encodedString)}"#)
        #expect(unsigned.status == 401)
    }
}
