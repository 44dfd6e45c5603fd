import Foundation

/// The words of a notification for one event, with `{{placeholders}}` filled in at send time.
///
/// ```swift
/// let text = NotificationTemplate.default(for: .checkin)!
///     .render(["points": "12", "location": "Brooklyn Location"])
/// text.body  // "You've got 12 points from your last visit at Brooklyn Location!"
/// ```
public struct NotificationTemplate: Sendable, Equatable {
    /// The event it is for.
    public var event: EventName
    /// Alert title.
    public var title: String
    /// Alert subtitle; empty for none.
    public var subtitle: String
    /// Alert body and inbox message.
    public var body: String
    /// Alert sound; empty for silent.
    public var sound: String
    /// When false the event notifies nobody.
    public var enabled: Bool
    /// Rich media attached to every push of this event.
    public var media: MediaAttachment?

    /// A template.
    public init(
        event: EventName, title: String, subtitle: String = "", body: String, sound: String = "default",
        enabled: Bool = true, media: MediaAttachment? = nil
    ) {
        self.event = event
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.sound = sound
        self.enabled = enabled
        self.media = media
    }

    /// A template's text after filling in the placeholders.
    public struct Rendered: Sendable, Equatable {
        /// Title.
        public var title: String
        /// Subtitle, nil when empty.
        public var subtitle: String?
        /// Body.
        public var body: String
        /// Sound, nil when empty.
        public var sound: String?
    }

    /// Fills every `{{name}}` with `values[name]` (missing values render empty; `validate` prevents that).
    public func render(_ values: [String: String]) -> Rendered {
        let subtitle = Self.fill(self.subtitle, values)
        return Rendered(
            title: Self.fill(title, values), subtitle: subtitle.isEmpty ? nil : subtitle, body: Self.fill(body, values),
            sound: sound.isEmpty ? nil : sound)
    }

    /// Problems with this template, per field: placeholders the event does not provide, unbalanced braces,
    /// empty title or body, over-long text. Empty when the template is good.
    public func validate() -> [(field: String, message: String)] {
        var problems: [(field: String, message: String)] = []
        let allowed = Self.placeholders(for: event)
        for (field, text) in [("title", title), ("subtitle", subtitle), ("body", body)] {
            switch Self.placeholderNames(in: text) {
            case .failure(let message):
                problems.append((field, message.description))
            case .success(let names):
                for name in names where !allowed.contains(name) {
                    problems.append(
                        (
                            field,
                            "unknown placeholder {{\(name)}}; \(event) provides: "
                                + allowed.sorted().map { "{{\($0)}}" }.joined(separator: ", ")
                        ))
                }
            }
            if text.utf8.count > 1000 { problems.append((field, "is too long (at most 1000 bytes)")) }
        }
        if title.trimmingCharacters(in: " ").isEmpty { problems.append(("title", "can't be blank")) }
        if body.trimmingCharacters(in: " ").isEmpty { problems.append(("body", "can't be blank")) }
        if sound.utf8.count > 100 { problems.append(("sound", "is too long (at most 100 bytes)")) }
        return problems
    }

    /// The placeholders every event provides.
    public static let commonPlaceholders: Set<String> = ["first_name", "last_name", "business"]

    /// The placeholders `event` provides.
    public static func placeholders(for event: EventName) -> Set<String> {
        let specific: Set<String>
        switch event {
        case .checkin, .checkinRetryFail, .checkinRetrySuccess, .checkinVoid, .pendingCheckin, .posScannerCheckin:
            specific = ["points", "location", "transaction_id", "total_points"]
        case .redemption: specific = ["discount", "location", "offer"]
        case .pointsToReward: specific = ["points", "reward", "total_points"]
        case .pointsToCurrency: specific = ["points", "amount", "total_points"]
        case .survey: specific = ["survey", "location"]
        case .giftCard: specific = ["balance"]
        case .news: specific = ["title", "subtitle", "body"]
        case .signup: specific = []
        case .welcomeOffer, .campaignOffer, .offerExpiry: specific = ["offer", "discount", "expiry"]
        default: specific = ["points", "location", "discount", "balance", "offer", "expiry"]
        }
        return commonPlaceholders.union(specific)
    }

    /// Whether the title, subtitle or body names `placeholder` (`location` for `{{location}}`).
    public func uses(_ placeholder: String) -> Bool {
        [title, subtitle, body].contains { text in
            (try? Self.placeholderNames(in: text).get())?.contains(placeholder) ?? false
        }
    }

    /// The placeholder names used in `text`, or why its braces don't parse.
    public static func placeholderNames(in text: String) -> Result<[String], PlaceholderError> {
        var names: [String] = []
        var rest = text[...]
        while let open = rest.range(of: "{{") {
            if rest[..<open.lowerBound].contains("}}") { return .failure(PlaceholderError("has a }} without {{")) }
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                return .failure(PlaceholderError("has an unclosed {{"))
            }
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: " ")
            guard !name.isEmpty, name.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }) else {
                return .failure(PlaceholderError("has an invalid placeholder {{\(name)}}"))
            }
            names.append(name)
            rest = rest[close.upperBound...]
        }
        if rest.contains("}}") { return .failure(PlaceholderError("has a }} without {{")) }
        return .success(names)
    }

    /// Why a template's braces don't parse.
    public struct PlaceholderError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The explanation.
        public let description: String
        init(_ description: String) { self.description = description }
    }

    static func fill(_ text: String, _ values: [String: String]) -> String {
        guard text.contains("{{") else { return text }
        var out = ""
        var rest = text[...]
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            out += rest[..<open.lowerBound]
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: " ")
            out += values[name] ?? ""
            rest = rest[close.upperBound...]
        }
        return out + rest
    }

    /// The template a fresh business uses for `event`, or nil for an event without one.
    public static func `default`(for event: EventName) -> NotificationTemplate? {
        defaults[event]
    }

    static let defaults: [EventName: NotificationTemplate] = {
        let list: [NotificationTemplate] = [
            .init(
                event: .checkin, title: "Points Earned", subtitle: "You've earned points!",
                body: "You've got {{points}} points from your last visit at {{location}}!"),
            .init(
                event: .posScannerCheckin, title: "Points Earned", subtitle: "You've earned points!",
                body: "You've got {{points}} points from your last visit at {{location}}!"),
            .init(
                event: .checkinRetrySuccess, title: "Points Earned", subtitle: "Your check-in went through",
                body: "You've got {{points}} points from your visit at {{location}}!"),
            .init(
                event: .checkinRetryFail, title: "Check-in failed", subtitle: "We couldn't add your points",
                body: "We couldn't add the points from your visit at {{location}}. Please scan your receipt again."),
            .init(
                event: .checkinVoid, title: "Check-in voided", subtitle: "Points removed",
                body: "The {{points}} points from your visit at {{location}} were removed."),
            .init(
                event: .pendingCheckin, title: "Check-in pending", subtitle: "Your points are on the way",
                body: "Your {{points}} points from {{location}} will be added once your visit is confirmed."),
            .init(
                event: .redemption, title: "You've got a discount", subtitle: "You've got a discount",
                body: "You've got a discount", sound: ""),
            .init(
                event: .pointsToReward, title: "Reward unlocked", subtitle: "Your points became a reward",
                body: "You've converted {{points}} points into {{reward}}!"),
            .init(
                event: .pointsToCurrency, title: "Reward unlocked", subtitle: "Your points became banked rewards",
                body: "You've converted {{points}} points into {{amount}} of banked rewards!"),
            .init(
                event: .survey, title: "How was your visit", subtitle: "Share your experience!",
                body: "Please share your experience from your last visit at {{location}}."),
            .init(
                event: .giftCard, title: "Gift card updated", body: "Your gift card balance is now {{balance}}.",
                sound: ""),
            .init(event: .news, title: "{{title}}", subtitle: "{{subtitle}}", body: "{{body}}"),
            .init(
                event: .signup, title: "Welcome to {{business}}", subtitle: "Thanks for joining!",
                body: "Hi {{first_name}}, welcome to {{business}}!"),
            .init(
                event: .welcomeOffer, title: "A welcome gift", subtitle: "Just for joining",
                body: "{{offer}} is waiting for you. Enjoy!"),
            .init(
                event: .campaignOffer, title: "A new offer for you", subtitle: "{{offer}}",
                body: "{{offer}} is waiting for you in your inbox."),
            .init(
                event: .offerExpiry, title: "Your offer expires soon", subtitle: "Don't miss out",
                body: "{{offer}} expires on {{expiry}}."),
        ]
        return Dictionary(uniqueKeysWithValues: list.map { ($0.event, $0) })
    }()
}

extension StringProtocol {
    func trimmingCharacters(in set: Character) -> String {
        var slice = self[...]
        while slice.first == set { slice = slice.dropFirst() }
        while slice.last == set { slice = slice.dropLast() }
        return String(slice)
    }
}
