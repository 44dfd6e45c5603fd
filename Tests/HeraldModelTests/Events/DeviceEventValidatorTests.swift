import HeraldModel
import Testing

/// The shared event check: every type's data rules, the batch shape, survey answers judged by the survey
/// validator, and hostile input in every field.
@Suite struct DeviceEventValidatorTests {
    static let eventID = "3f2b8c1e-5a4d-4e6f-9a7b-0c1d2e3f4a5b"
    static let survey = SurveyDefinition(
        title: "Visit",
        questions: [
            SurveyQuestion(id: "stars", text: "Rate us", type: .rating, required: true),
            SurveyQuestion(
                id: "drink", text: "Drink?", type: .singleChoice,
                choices: [SurveyChoice(id: "tea", text: "Tea"), SurveyChoice(id: "coffee", text: "Coffee")]),
        ])

    static func event(_ type: String, notificationID: JSON? = "m-1", data: JSON? = nil) -> JSON {
        var pairs: [(key: String, value: JSON)] = [
            ("id", .string(eventID)), ("type", .string(type)), ("occurred_at", "2025-05-01T09:30:00.250Z"),
        ]
        if let notificationID { pairs.append(("notification_id", notificationID)) }
        if let data { pairs.append(("data", data)) }
        return .object(pairs)
    }

    static func surveys(_ id: String) -> SurveyDefinition? { id == "m-1" ? survey : nil }

    func problems(_ json: JSON, validator: DeviceEventValidator = DeviceEventValidator()) -> [String] {
        validator.check(json, surveyFor: Self.surveys).problems.map(\.description)
    }

    @Test func acceptsEachTypeWithItsData() throws {
        let good: [JSON] = [
            Self.event("notification.received"),
            Self.event("notification.displayed"),
            Self.event("notification.displayed", data: ["location_id": 17]),
            Self.event("notification.displayed", data: ["location_id": "loc-1"]),
            Self.event("notification.opened"),
            Self.event("notification.cta_clicked", data: ["url": "https://example.com"]),
            Self.event("notification.dismissed"),
            Self.event("media.viewed", data: ["position_seconds": 0]),
            Self.event("media.viewed", data: ["position_seconds": 12.5]),
            Self.event("media.completed"),
            Self.event("notification.survey_started"),
            Self.event("survey.submitted", data: ["answers": [["question_id": "stars", "value": 4]]]),
            Self.event(
                "survey.submitted",
                data: ["answers": [["question_id": "stars", "value": 5], ["question_id": "drink", "value": "tea"]]]),
            Self.event(
                "app.opened", notificationID: nil,
                data: ["sdk_version": "1.0.0", "app_version": "3.2", "os_version": "iOS 17.4"]),
            Self.event("custom", notificationID: nil, data: ["name": "cart.checkout:done-1"]),
            Self.event(
                "custom", notificationID: nil,
                data: ["name": "purchase", "properties": ["total": 12.5, "items": 2, "member": true, "coupon": nil]]),
            Self.event("custom", data: ["name": "x"]),
        ]
        for json in good {
            let check = DeviceEventValidator().check(json, surveyFor: Self.surveys)
            #expect(check.problems.isEmpty, "\(json.encodedString): \(check.problems)")
            #expect(check.isAccepted)
            #expect(check.id == Self.eventID)
            let event = try #require(check.event)
            #expect(event.json == json || event.json["data"] == nil, "the event written back is the one read")
            #expect(DeviceEvent(json: event.json) == event)
        }
    }

    /// One event and the problems it must get, as `field message` texts' fields.
    static let bad: [(JSON, [String])] = [
        (.string("event"), ["event"]),
        (["type": "notification.opened", "occurred_at": "2025-05-01T09:30:00Z", "notification_id": "m"], ["id"]),
        (event("notification.opened").replacing("id", with: "not-a-uuid"), ["id"]),
        (event("notification.opened").replacing("id", with: 5), ["id"]),
        (event("notification.opened").replacing("type", with: nil), ["type"]),
        (event("notification.exploded"), ["type"]),
        (event("notification.opened").replacing("type", with: ["x"]), ["type"]),
        (event("notification.opened").replacing("occurred_at", with: nil), ["occurred_at"]),
        (event("notification.opened").replacing("occurred_at", with: "yesterday"), ["occurred_at"]),
        (event("notification.opened").replacing("occurred_at", with: 1_714_555_800), ["occurred_at"]),
        (event("notification.opened", notificationID: nil), ["notification_id"]),
        (event("media.completed", notificationID: ""), ["notification_id"]),
        (event("media.completed", notificationID: ["m"]), ["notification_id"]),
        (event("notification.opened", data: "yes"), ["data"]),
        (event("notification.opened", data: [1, 2]), ["data"]),
        (event("notification.displayed", data: ["location_id": true]), ["data.location_id"]),
        (event("notification.displayed", data: ["location_id": -3]), ["data.location_id"]),
        (event("media.viewed", data: ["position_seconds": -1]), ["data.position_seconds"]),
        (event("media.viewed", data: ["position_seconds": "10"]), ["data.position_seconds"]),
        (event("survey.submitted"), ["data.answers"]),
        (event("survey.submitted", data: ["answers": ["stars": 4]]), ["data.answers"]),
        (event("survey.submitted", data: ["answers": [4]]), ["data.answers[0]"]),
        (event("survey.submitted", data: ["answers": [["value": 4]]]), ["data.answers[0].question_id"]),
        (
            event("survey.submitted", data: ["answers": [["question_id": "a b", "value": 4]]]),
            ["data.answers[0].question_id"]
        ),
        (
            event(
                "survey.submitted",
                data: ["answers": [["question_id": "stars", "value": 4], ["question_id": "stars", "value": 5]]]),
            ["data.answers[1].question_id"]
        ),
        (event("survey.submitted", data: ["answers": []]), ["data.answers.stars"]),
        (event("survey.submitted", data: ["answers": [["question_id": "stars", "value": 9]]]), ["data.answers.stars"]),
        (
            event(
                "survey.submitted",
                data: ["answers": [["question_id": "stars", "value": 3], ["question_id": "drink", "value": "milk"]]]),
            ["data.answers.drink"]
        ),
        (
            event(
                "survey.submitted",
                data: ["answers": [["question_id": "stars", "value": 3], ["question_id": "who", "value": 1]]]),
            ["data.answers.who"]
        ),
        (
            event(
                "survey.submitted", notificationID: "m-2", data: ["answers": [["question_id": "stars", "value": 3]]]),
            ["notification_id"]
        ),
        (event("app.opened", notificationID: nil), ["data.sdk_version", "data.app_version", "data.os_version"]),
        (
            event("app.opened", notificationID: nil, data: ["sdk_version": "1", "app_version": " ", "os_version": 17]),
            ["data.app_version", "data.os_version"]
        ),
        (
            event(
                "app.opened", notificationID: nil,
                data: [
                    "sdk_version": .string(String(repeating: "1", count: 101)), "app_version": "1\n2",
                    "os_version": "x",
                ]),
            ["data.sdk_version", "data.app_version"]
        ),
        (event("custom", notificationID: nil), ["data.name"]),
        (event("custom", notificationID: nil, data: ["name": ""]), ["data.name"]),
        (event("custom", notificationID: nil, data: ["name": "has space"]), ["data.name"]),
        (event("custom", notificationID: nil, data: ["name": "émoji"]), ["data.name"]),
        (
            event("custom", notificationID: nil, data: ["name": .string(String(repeating: "n", count: 101))]),
            ["data.name"]
        ),
        (event("custom", notificationID: nil, data: ["name": 5]), ["data.name"]),
        (event("custom", notificationID: nil, data: ["name": "ok", "properties": [1]]), ["data.properties"]),
        (
            event("custom", notificationID: nil, data: ["name": "ok", "properties": ["deep": ["a": 1]]]),
            ["data.properties.deep"]
        ),
        (
            event("custom", notificationID: nil, data: ["name": "ok", "properties": ["list": [1]]]),
            ["data.properties.list"]
        ),
        (event("custom", notificationID: nil, data: ["name": "ok", "properties": ["": 1]]), ["data.properties."]),
        (
            event(
                "custom", notificationID: nil,
                data: ["name": "ok", "properties": ["long": .string(String(repeating: "v", count: 1001))]]),
            ["data.properties.long"]
        ),
    ]

    @Test(arguments: 0..<bad.count) func refusesWithTheFieldsProblems(_ index: Int) {
        let (json, fields) = Self.bad[index]
        let check = DeviceEventValidator().check(json, surveyFor: Self.surveys)
        #expect(check.problems.map(\.field) == fields, "\(json.encodedString): \(check.problems)")
        #expect(check.event == nil && !check.isAccepted)
        #expect(check.errors.objectValue?.map(\.key) == fields)
    }

    @Test func customPropertiesAreCappedAt50() {
        func properties(_ count: Int) -> JSON {
            .object((0..<count).map { (key: "p\($0)", value: JSON.int(Int64($0))) })
        }
        #expect(problems(Self.event("custom", data: ["name": "n", "properties": properties(50)])).isEmpty)
        #expect(
            problems(Self.event("custom", data: ["name": "n", "properties": properties(51)])) == [
                "data.properties must have at most 50 properties (has 51)"
            ])
    }

    @Test func surveyProblemsComeFromTheSharedValidator() {
        let check = DeviceEventValidator().check(
            Self.event("survey.submitted", data: ["answers": [["question_id": "stars", "value": 3.5]]]),
            surveyFor: Self.surveys)
        let expected = SurveyValidator(Self.survey).validate(try! SurveyAnswers(json: ["stars": 3.5]))
        #expect(expected.count == 1)
        #expect(check.problems.count == 1)
        #expect(check.problems.first?.field == "data.answers.stars")
        #expect(check.problems.first?.message.hasPrefix(expected[0].message) == true)
        #expect(check.problems.first?.message.contains(expected[0].code.rawValue) == true)
        // Without a way to find surveys, a submission can't be judged: refused.
        let blind = DeviceEventValidator().check(
            Self.event("survey.submitted", data: ["answers": [["question_id": "stars", "value": 3]]]))
        #expect(blind.problems.map(\.code) == [.unknownSurvey])
    }

    @Test func surveyAnswersReadBack() {
        var answers = SurveyAnswers()
        answers["stars"] = 4
        answers["drink"] = "tea"
        let data = DeviceEvent.surveySubmittedData(answers)
        #expect(
            data == ["answers": [["question_id": "stars", "value": 4], ["question_id": "drink", "value": "tea"]]])
        #expect(DeviceEvent.surveyAnswers(inData: data) == answers)
        #expect(DeviceEvent.surveyAnswers(inData: ["answers": "x"]) == nil)
    }

    @Test func occurredAtWindow() {
        let now = Timestamp(iso8601: "2025-05-01T10:00:00Z")!
        let validator = DeviceEventValidator(acceptedTimes: now.adding(.seconds(-3600))...now.adding(.seconds(60)))
        #expect(problems(Self.event("notification.opened"), validator: validator).isEmpty)
        let late = Self.event("notification.opened").replacing("occurred_at", with: "2025-05-01T10:01:01Z")
        #expect(validator.check(late).problems.map(\.code) == [.outOfRange])
        let early = Self.event("notification.opened").replacing("occurred_at", with: "2025-05-01T08:59:59Z")
        #expect(validator.check(early).problems.map(\.code) == [.outOfRange])
    }

    @Test func batches() throws {
        let one = Self.event("notification.opened")
        #expect(try DeviceEventValidator().checkBatch(["events": [one, "x"]]).map(\.isAccepted) == [true, false])
        let hundred = JSON.object([("events", .array(Array(repeating: one, count: 100)))])
        #expect(try DeviceEventValidator().checkBatch(hundred).count == 100)
        let cases: [(JSON, DeviceEventProblem.Code)] = [
            (.array([one]), .wrongType), (["events": nil], .required), ([:], .required), (["events": one], .wrongType),
            (["events": []], .required), (["events": .array(Array(repeating: one, count: 101))], .tooMany),
        ]
        for (body, code) in cases {
            #expect(throws: DeviceEventProblem.self) { try DeviceEventValidator().checkBatch(body) }
            do {
                _ = try DeviceEventValidator().checkBatch(body)
            } catch {
                #expect(error.code == code && error.field == "events")
            }
        }
    }

    @Test func eventsWriteMilliseconds() {
        let event = DeviceEvent(
            id: Self.eventID, type: .notificationOpened, occurredAt: Timestamp(milliseconds: 1_714_555_800_007),
            notificationID: "m-1")
        #expect(event.json["occurred_at"] == "2024-05-01T09:30:00.007Z")
        #expect(DeviceEvent(json: event.json) == event)
        #expect(DeviceEvent(json: ["id": "x", "type": "t"]) == nil)
    }

    @Test func uuidAndNameRules() {
        #expect(DeviceEventValidator.isUUID(Self.eventID))
        #expect(DeviceEventValidator.isUUID(Self.eventID.uppercased()))
        #expect(DeviceEventValidator.isUUID(UUIDString.random()))
        #expect(!DeviceEventValidator.isUUID(String(Self.eventID.dropLast())))
        #expect(!DeviceEventValidator.isUUID(Self.eventID.replacingOccurrences(of: "-", with: "x")))
        #expect(!DeviceEventValidator.isUUID("g" + Self.eventID.dropFirst()))
        #expect(DeviceEventValidator.isCustomName("a.b:c-d_E9"))
        #expect(!DeviceEventValidator.isCustomName("a/b"))
    }
}

extension JSON {
    /// This object with `key` set to `value` (nil removes it).
    func replacing(_ key: String, with value: JSON?) -> JSON {
        var pairs = objectValue!.filter { $0.key != key }
        if let value { pairs.append((key, value)) }
        return .object(pairs)
    }
}
