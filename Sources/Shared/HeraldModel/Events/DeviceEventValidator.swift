/// The one check of device events: the server runs it on every event of `POST /api/v1/events` to accept or
/// reject it, the SDK before it queues one, so the two never disagree.
///
/// Every event needs `id` (a UUID), `type` (a known type), `occurred_at` (ISO 8601, within
/// `acceptedTimes` when set) and, for the notification, media and survey types, `notification_id`. `data`, when
/// present, is an object; per type:
/// - `notification.displayed`: `location_id` optional, a string or a whole number ≥ 0;
/// - `media.viewed`: `position_seconds` optional, a finite number ≥ 0;
/// - `survey.submitted`: `answers` required, a list of `{"question_id","value"}` with distinct question ids,
///   which `SurveyValidator` accepts for the survey `surveyFor(notification_id)` returns;
/// - `app.opened`: `sdk_version`, `app_version`, `os_version` required, text of 1 to 100 characters;
/// - `custom`: `name` required, 1 to 100 characters from `A-Z a-z 0-9 _ . : -`; `properties` optional, an object of
///   at most 50 keys (1 to 100 characters each) whose values are strings of at most 1,000 characters, numbers,
///   booleans or null.
///
/// Other keys of `data` are ignored. Problems come in the order above, one per field at most.
///
/// ```swift
/// let validator = DeviceEventValidator(acceptedTimes: now.adding(.seconds(-30 * 86_400))...now.adding(.seconds(86_400)))
/// for item in try validator.checkBatch(body) { … }  // throws the one problem of a body that isn't a batch
/// let check = validator.check(eventJSON) { notificationID in surveys[notificationID] }
/// check.event     // the event, when accepted
/// check.problems  // else why not
/// ```
public struct DeviceEventValidator: Sendable {
    /// The most events in one `POST /api/v1/events`.
    public static let maximumBatchSize = 100
    /// The most properties of a `custom` event.
    public static let maximumCustomProperties = 50
    /// The longest `custom` name and property key, in characters.
    public static let maximumNameLength = 100
    /// The longest string property value of a `custom` event, in characters.
    public static let maximumPropertyValueLength = 1000
    /// The longest version text of `app.opened`, in characters.
    public static let maximumVersionLength = 100

    /// The times `occurred_at` may be in; nil accepts any.
    public var acceptedTimes: ClosedRange<Timestamp>?

    /// A validator; `acceptedTimes` bounds `occurred_at` (the server: from a little past the SDK's 72 hours to a
    /// little ahead of its clock).
    public init(acceptedTimes: ClosedRange<Timestamp>? = nil) {
        self.acceptedTimes = acceptedTimes
    }

    /// Reads an events body `{"events":[…]}` of 1 to 100 events and checks each, in order. Throws the one problem
    /// (field `events`) when the body isn't that.
    public func checkBatch(
        _ body: JSON, surveyFor: (_ notificationID: String) -> SurveyDefinition? = { _ in nil }
    ) throws(DeviceEventProblem) -> [DeviceEventCheck] {
        guard body.objectValue != nil else {
            throw DeviceEventProblem(
                field: "events", code: .wrongType, message: "must be in an object {\"events\":[…]}")
        }
        guard let items = body["events"]?.arrayValue else {
            let missing = body["events"] == nil || body["events"]?.isNull == true
            throw DeviceEventProblem(
                field: "events", code: missing ? .required : .wrongType, message: "must be a list of events")
        }
        guard !items.isEmpty else {
            throw DeviceEventProblem(field: "events", code: .required, message: "must have at least 1 event")
        }
        guard items.count <= Self.maximumBatchSize else {
            throw DeviceEventProblem(
                field: "events", code: .tooMany,
                message: "must have at most \(Self.maximumBatchSize) events (has \(items.count))")
        }
        return items.map { check($0, surveyFor: surveyFor) }
    }

    /// A required ISO 8601 time within `window` (when given): the `occurred_at` of an event or a geofence visit.
    public static func time(_ value: JSON?, field: String, within window: ClosedRange<Timestamp>?) -> Result<
        Timestamp, DeviceEventProblem
    > {
        switch value {
        case nil, .null?: return .failure(DeviceEventProblem(field: field, code: .required, message: "can't be blank"))
        case .string(let text)?:
            guard let parsed = Timestamp(iso8601: text) else {
                return .failure(
                    DeviceEventProblem(
                        field: field, code: .invalid, message: "must be an ISO 8601 time (2025-05-01T09:30:00Z)"))
            }
            if let window, !window.contains(parsed) {
                return .failure(
                    DeviceEventProblem(
                        field: field, code: .outOfRange,
                        message: "must be from \(window.lowerBound.iso8601) to \(window.upperBound.iso8601)"))
            }
            return .success(parsed)
        default:
            return .failure(
                DeviceEventProblem(field: field, code: .wrongType, message: "must be an ISO 8601 time (a string)"))
        }
    }

    /// Checks one event. `surveyFor` answers the survey of a message id (for `survey.submitted`), or nil when
    /// that message isn't a survey known here.
    public func check(
        _ json: JSON, surveyFor: (_ notificationID: String) -> SurveyDefinition? = { _ in nil }
    ) -> DeviceEventCheck {
        var problems: [DeviceEventProblem] = []
        func add(_ field: String, _ code: DeviceEventProblem.Code, _ message: String) {
            problems.append(DeviceEventProblem(field: field, code: code, message: message))
        }
        guard json.objectValue != nil else {
            add("event", .wrongType, "must be an object")
            return DeviceEventCheck(id: nil, event: nil, problems: problems)
        }
        // id
        var id: String?
        switch json["id"] {
        case nil, .null: add("id", .required, "can't be blank")
        case .string(let text) where Self.isUUID(text): id = text
        case .string: add("id", .invalid, "must be a UUID")
        default: add("id", .wrongType, "must be a UUID (a string)")
        }
        // type
        var type: DeviceEventType?
        switch json["type"] {
        case nil, .null: add("type", .required, "can't be blank")
        case .string(let name) where DeviceEventType(rawValue: name).isKnown: type = DeviceEventType(rawValue: name)
        case .string:
            add(
                "type", .unknownType,
                "is not an event type (one of \(DeviceEventType.allKnown.map(\.rawValue).joined(separator: ", ")))")
        default: add("type", .wrongType, "must be a string")
        }
        // occurred_at
        var time: Timestamp?
        switch Self.time(json["occurred_at"], field: "occurred_at", within: acceptedTimes) {
        case .success(let parsed): time = parsed
        case .failure(let problem): problems.append(problem)
        }
        // notification_id
        var notificationID: String?
        switch json["notification_id"] {
        case nil, .null:
            if type?.needsNotification == true { add("notification_id", .required, "can't be blank") }
        case let value?:
            if let text = HeraldMessage.identifier(value) {
                notificationID = text
            } else {
                add("notification_id", .invalid, "must be a message id (1 to 255 bytes of text)")
            }
        }
        // data
        var data: JSON?
        switch json["data"] {
        case nil, .null: data = nil
        case .object(let pairs): data = .object(pairs)
        default: add("data", .wrongType, "must be an object")
        }
        if let type, json["data"].map({ $0.isNull || $0.objectValue != nil }) ?? true {
            checkData(
                data, of: type, notificationID: notificationID, surveyFor: surveyFor,
                into: &problems)
        }
        guard problems.isEmpty, let id, let type, let time else {
            // Echoed as sent, even when it is not a UUID: the client matches results to its events by it.
            return DeviceEventCheck(id: id ?? json["id"]?.stringValue, event: nil, problems: problems)
        }
        let event = DeviceEvent(id: id, type: type, occurredAt: time, notificationID: notificationID, data: data)
        return DeviceEventCheck(id: id, event: event, problems: [])
    }

    // MARK: - Each type's data

    private func checkData(
        _ data: JSON?, of type: DeviceEventType, notificationID: String?,
        surveyFor: (String) -> SurveyDefinition?, into problems: inout [DeviceEventProblem]
    ) {
        func add(_ field: String, _ code: DeviceEventProblem.Code, _ message: String) {
            problems.append(DeviceEventProblem(field: field, code: code, message: message))
        }
        func present(_ key: String) -> JSON? {
            guard let value = data?[key], !value.isNull else { return nil }
            return value
        }
        switch type {
        case .notificationDisplayed:
            if let value = present("location_id"), HeraldMessage.identifier(value) == nil {
                add("data.location_id", .wrongType, "must be a location id (a string or a whole number)")
            }
        case .mediaViewed:
            if let value = present("position_seconds") {
                if let seconds = value.doubleValue, seconds.isFinite {
                    if seconds < 0 { add("data.position_seconds", .outOfRange, "must be at least 0") }
                } else {
                    add("data.position_seconds", .wrongType, "must be a number")
                }
            }
        case .surveySubmitted:
            checkSurveyAnswers(
                present("answers"), notificationID: notificationID, surveyFor: surveyFor, into: &problems)
        case .appOpened:
            for key in ["sdk_version", "app_version", "os_version"] {
                switch present(key) {
                case nil: add("data.\(key)", .required, "can't be blank")
                case .string(let text):
                    let trimmed = SurveyText.trimmed(text)
                    if trimmed.isEmpty {
                        add("data.\(key)", .required, "can't be blank")
                    } else if SurveyText.isLonger(trimmed, than: Self.maximumVersionLength) {
                        add("data.\(key)", .tooLong, "is too long (at most \(Self.maximumVersionLength) characters)")
                    } else if SurveyText.hasForbiddenControl(trimmed) || trimmed.contains("\n") {
                        add("data.\(key)", .invalid, "must not contain control characters")
                    }
                default: add("data.\(key)", .wrongType, "must be a string")
                }
            }
        case .custom:
            switch present("name") {
            case nil: add("data.name", .required, "can't be blank")
            case .string(let name) where Self.isCustomName(name): break
            case .string:
                add("data.name", .invalid, "must be 1 to 100 characters from A-Z, a-z, 0-9, _, ., : and -")
            default: add("data.name", .wrongType, "must be a string")
            }
            checkProperties(present("properties"), into: &problems)
        default:
            break
        }
    }

    private func checkSurveyAnswers(
        _ value: JSON?, notificationID: String?, surveyFor: (String) -> SurveyDefinition?,
        into problems: inout [DeviceEventProblem]
    ) {
        func add(_ field: String, _ code: DeviceEventProblem.Code, _ message: String) {
            problems.append(DeviceEventProblem(field: field, code: code, message: message))
        }
        guard let value else {
            add("data.answers", .required, "can't be blank")
            return
        }
        guard let items = value.arrayValue else {
            add("data.answers", .wrongType, "must be a list of {\"question_id\",\"value\"}")
            return
        }
        guard items.count <= SurveyDefinition.maximumQuestions else {
            add("data.answers", .tooMany, "must have at most \(SurveyDefinition.maximumQuestions) answers")
            return
        }
        var answers = SurveyAnswers()
        var firstIndex: [String: Int] = [:]
        let before = problems.count
        for (index, item) in items.enumerated() {
            let path = "data.answers[\(index)]"
            guard item.objectValue != nil else {
                add(path, .wrongType, "must be an object {\"question_id\",\"value\"}")
                continue
            }
            guard let questionID = SurveyQuestion.identifier(item["question_id"]) else {
                let missing = item["question_id"] == nil || item["question_id"]?.isNull == true
                add(
                    "\(path).question_id", missing ? .required : .invalid,
                    missing ? "can't be blank" : SurveyText.identifierMessage)
                continue
            }
            if let first = firstIndex[questionID] {
                add("\(path).question_id", .duplicate, "duplicates data.answers[\(first)].question_id")
                continue
            }
            firstIndex[questionID] = index
            answers[questionID] = item["value"] ?? .null
        }
        guard problems.count == before, let notificationID else { return }
        guard let survey = surveyFor(notificationID) else {
            add("notification_id", .unknownSurvey, "is not a survey sent to this install")
            return
        }
        for problem in SurveyValidator(survey).validate(answers) {
            add("data.answers.\(problem.field)", .answer, "\(problem.message) (\(problem.code.rawValue))")
        }
    }

    private func checkProperties(_ value: JSON?, into problems: inout [DeviceEventProblem]) {
        func add(_ field: String, _ code: DeviceEventProblem.Code, _ message: String) {
            problems.append(DeviceEventProblem(field: field, code: code, message: message))
        }
        guard let value else { return }
        guard let pairs = value.objectValue else {
            add("data.properties", .wrongType, "must be an object")
            return
        }
        var keys: [String] = []
        var seen: Set<String> = []
        for pair in pairs where seen.insert(pair.key).inserted { keys.append(pair.key) }
        guard keys.count <= Self.maximumCustomProperties else {
            add(
                "data.properties", .tooMany,
                "must have at most \(Self.maximumCustomProperties) properties (has \(keys.count))")
            return
        }
        for key in keys {
            let field = "data.properties.\(key)"
            if key.isEmpty || SurveyText.isLonger(Substring(key), than: Self.maximumNameLength) {
                add(field, .invalid, "must have a name of 1 to \(Self.maximumNameLength) characters")
                continue
            }
            switch value[key] {
            case .string(let text):
                if SurveyText.isLonger(Substring(text), than: Self.maximumPropertyValueLength) {
                    add(field, .tooLong, "is too long (at most \(Self.maximumPropertyValueLength) characters)")
                }
            case .int, .bool, .null: break
            case .double(let number) where number.isFinite: break
            default: add(field, .wrongType, "must be a string, a number, true, false or null")
            }
        }
    }

    // MARK: - Rules

    /// True for a UUID in its 8-4-4-4-12 hexadecimal form (either case).
    public static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                    UInt8(ascii: "A")...UInt8(ascii: "F"):
                    continue
                default: return false
                }
            }
        }
        return true
    }

    /// True for a `custom` event name: 1 to 100 characters from `A-Z a-z 0-9 _ . : -`.
    public static func isCustomName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard (1...maximumNameLength).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"),
                UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }
}
