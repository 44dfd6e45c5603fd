/// The verdict on one device event: the event when it is acceptable, else its problems.
///
/// The server answers each event of a batch from it: `{"id","status":"accepted"}` (or `duplicate` for an id it
/// already has), or `{"id","status":"rejected","errors":check.errors}`.
public struct DeviceEventCheck: Sendable, Equatable {
    /// The event's id as sent, when it was text (a UUID for an accepted event), to echo in the results; nil when it
    /// was missing or not text.
    public let id: String?
    /// The event, when it has no problems.
    public let event: DeviceEvent?
    /// Why it is refused; empty when accepted.
    public let problems: [DeviceEventProblem]

    /// A verdict.
    public init(id: String?, event: DeviceEvent?, problems: [DeviceEventProblem]) {
        self.id = id
        self.event = event
        self.problems = problems
    }

    /// True when there are no problems.
    public var isAccepted: Bool { problems.isEmpty && event != nil }

    /// The problems as an errors object, `{"field":["message",…]}`, fields in order of first problem.
    public var errors: JSON {
        var fields: [String] = []
        var messages: [String: [JSON]] = [:]
        for problem in problems {
            if messages[problem.field] == nil { fields.append(problem.field) }
            messages[problem.field, default: []].append(.string(problem.message))
        }
        return .object(fields.map { (key: $0, value: .array(messages[$0]!)) })
    }
}
