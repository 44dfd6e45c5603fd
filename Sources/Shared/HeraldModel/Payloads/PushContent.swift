/// What a push says, independent of the service that carries it: the server builds APNs and FCM payloads
/// from it, and the SDK decodes either payload back into it.
public struct PushContent: Sendable, Equatable {
    /// The inbox entry's id: the payload's `n`, which the SDK de-duplicates on.
    public var notificationID: Int64
    /// Alert title (nil for a background push).
    public var title: String?
    /// Alert subtitle.
    public var subtitle: String?
    /// Alert body.
    public var body: String?
    /// Sound name (`default`), nil for none.
    public var sound: String?
    /// The badge: the user's unread count at send time.
    public var badge: Int?
    /// Rich media for a notification service extension.
    public var media: MediaAttachment?
    /// Event keys (`f`, `i`, `p`, `t`, `u`, `s`, `rd`, `gc`), numbers and strings as the seed shows them.
    public var extras: [(key: String, value: JSON)]
    /// A silent `content-available` push.
    public var isBackground: Bool

    /// Content for a push.
    public init(
        notificationID: Int64, title: String? = nil, subtitle: String? = nil, body: String? = nil, sound: String? = nil,
        badge: Int? = nil, media: MediaAttachment? = nil, extras: [(key: String, value: JSON)] = [],
        isBackground: Bool = false
    ) {
        self.notificationID = notificationID
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.sound = sound
        self.badge = badge
        self.media = media
        self.extras = extras
        self.isBackground = isBackground
    }

    public static func == (lhs: PushContent, rhs: PushContent) -> Bool {
        lhs.notificationID == rhs.notificationID && lhs.title == rhs.title && lhs.subtitle == rhs.subtitle
            && lhs.body == rhs.body && lhs.sound == rhs.sound && lhs.badge == rhs.badge && lhs.media == rhs.media
            && lhs.isBackground == rhs.isBackground && JSON.object(lhs.extras) == JSON.object(rhs.extras)
    }

    /// The value of an event key.
    public func extra(_ key: String) -> JSON? { extras.last { $0.key == key }?.value }

    /// Keys the payload reserves for itself; event extras never use them (`herald` is a campaign push's message,
    /// `MessagePush`).
    public static let reservedKeys: Set<String> = ["aps", "ab", "n", "herald"]
}
