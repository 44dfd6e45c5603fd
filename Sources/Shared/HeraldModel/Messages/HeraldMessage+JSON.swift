extension HeraldMessage {
    /// The keys this version reads; any other key is kept in `otherFields`.
    static let knownKeys: Set<String> = [
        "id", "campaign_id", "type", "headline", "body", "sandbox", "media", "cta", "questions",
    ]

    /// Reads a message, or nil when `json` isn't one. It is one when it is an object with: `id` (a string of 1
    /// to 255 bytes, or a whole number ≥ 0, read as its digits), `type`, `headline` and `body` as strings;
    /// `campaign_id` absent, null, a string or a whole number; `sandbox` absent, null or a boolean; `media` and
    /// `cta` absent, null or readable (`MessageMedia(json:)`, `CallToAction(json:)`); `questions` absent, null or
    /// a list of questions the admin API would accept, with distinct ids. Unknown keys are kept.
    public init?(json: JSON) {
        guard let pairs = json.objectValue, let id = Self.identifier(json["id"]),
            let type = json["type"]?.stringValue, !type.isEmpty,
            let headline = json["headline"]?.stringValue, let body = json["body"]?.stringValue
        else { return nil }
        var campaignID: String?
        switch json["campaign_id"] {
        case nil, .null: campaignID = nil
        case let value?:
            guard let text = Self.identifier(value) else { return nil }
            campaignID = text
        }
        var sandbox = false
        switch json["sandbox"] {
        case nil, .null: sandbox = false
        case .bool(let flag): sandbox = flag
        default: return nil
        }
        var media: MessageMedia?
        if let value = json["media"], !value.isNull {
            guard let parsed = MessageMedia(json: value) else { return nil }
            media = parsed
        }
        var cta: CallToAction?
        if let value = json["cta"], !value.isNull {
            guard let parsed = CallToAction(json: value) else { return nil }
            cta = parsed
        }
        var questions: [SurveyQuestion] = []
        switch json["questions"] {
        case nil, .null: break
        case .array(let items):
            guard items.count <= SurveyDefinition.maximumQuestions else { return nil }
            var problems = SurveyProblemList()
            var seen: Set<String> = []
            for (index, item) in items.enumerated() {
                guard let question = SurveyQuestion.parse(item, at: "questions[\(index)]", into: &problems),
                    seen.insert(question.id).inserted
                else { return nil }
                questions.append(question)
            }
        default: return nil
        }
        var seenKeys: Set<String> = []
        var others: [(key: String, value: JSON)] = []
        for pair in pairs.reversed() where !Self.knownKeys.contains(pair.key) && seenKeys.insert(pair.key).inserted {
            others.append(pair)
        }
        self.init(
            id: id, campaignID: campaignID, type: MessageType(rawValue: type), headline: headline, body: body,
            isSandbox: sandbox, media: media, cta: cta, questions: questions, otherFields: others.reversed())
    }

    /// Reads a message from its JSON text; nil when the text isn't JSON or isn't a message.
    public init?(json text: String) {
        guard let value = try? JSON.parse(text) else { return nil }
        self.init(json: value)
    }

    /// Reads a message from its UTF-8 JSON bytes; nil when they aren't JSON or aren't a message.
    public init?(json bytes: [UInt8]) {
        guard let value = try? JSON.parse(bytes) else { return nil }
        self.init(json: value)
    }

    /// The message as the device API writes it: `id`, `campaign_id` (when set), `type`, `headline`, `body`,
    /// `sandbox`, `media` and `cta` (when set), `questions` (always, `[]` for a plain message), then the unknown
    /// keys it was read with. `HeraldMessage(json:)` reads it back to an equal message.
    public var json: JSON {
        var pairs: [(key: String, value: JSON)] = [("id", .string(id))]
        if let campaignID { pairs.append(("campaign_id", .string(campaignID))) }
        pairs.append(contentsOf: [
            ("type", .string(type.rawValue)), ("headline", .string(headline)), ("body", .string(body)),
            ("sandbox", .bool(isSandbox)),
        ])
        if let media { pairs.append(("media", media.json)) }
        if let cta { pairs.append(("cta", cta.json)) }
        pairs.append(("questions", .array(questions.map(\.json))))
        pairs.append(contentsOf: otherFields.filter { !Self.knownKeys.contains($0.key) })
        return .object(pairs)
    }

    /// `json` as compact text: what an app stores to show the message again later.
    public var jsonText: String { json.encodedString }

    /// An id as text: a string of 1 to `maximumIDLength` bytes without control characters, or a whole number
    /// ≥ 0 as its digits.
    public static func identifier(_ value: JSON?) -> String? {
        switch value {
        case .string(let text):
            guard !text.isEmpty, text.utf8.count <= maximumIDLength,
                !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
            else { return nil }
            return text
        case .int(let number) where number >= 0:
            return String(number)
        default:
            return nil
        }
    }
}
