import HeraldModel

/// What an event puts in a user's inbox, and how it is pushed.
public struct NotificationDraft: Sendable, Equatable {
    /// Owning business.
    public var businessID: Int64
    /// Recipient (nil: a campaign's message to a device nobody is signed in on).
    public var userID: Int64?
    /// Inbox grouping.
    public var kind: InboxKind
    /// The event that produced it (`checkin`, `news`, …).
    public var event: String
    /// Alert title.
    public var title: String
    /// Alert subtitle.
    public var subtitle: String?
    /// Alert body; the inbox's `message`.
    public var body: String
    /// Alert sound (`default`), or nil for none.
    public var sound: String?
    /// Rich media to attach.
    public var media: MediaAttachment?
    /// Event-specific payload keys (`f`, `i`, `p`, `t`, `u`, `s`, `rd`, `gc`); `n` and `aps` are added at send time.
    public var extras: JSON
    /// How it is pushed.
    public var pushStyle: PushStyle
    /// False for entries that only carry a push (the silent gift-card update).
    public var visibleInInbox: Bool
    /// The offer granted with it, if any.
    public var rewardID: Int64?
    /// Pushes sharing it replace one another on the device (`apns-collapse-id`, FCM's `collapse_key`).
    public var collapseID: String?
    /// The campaign that sent it, if one did.
    public var campaignID: Int64?
    /// What sent it (`launch`, a geofence visit's key): a device, or a user's inbox, gets a campaign's message once
    /// per trigger.
    public var triggerKey: String?
    /// The one device a campaign's message is for (nil for an entry addressed to a user and all their devices).
    public var deviceID: Int64?
    /// The message as the SDK reads it (`HeraldMessage`'s JSON, its id this entry's), for a campaign's message.
    public var message: JSON?
    /// Whether a pull hands it to its device (once).
    public var pullable: Bool

    /// A draft.
    public init(
        businessID: Int64, userID: Int64?, kind: InboxKind, event: String, title: String, subtitle: String? = nil,
        body: String, sound: String? = "default", media: MediaAttachment? = nil, extras: JSON = .object([]),
        pushStyle: PushStyle = .alert, visibleInInbox: Bool = true, rewardID: Int64? = nil, collapseID: String? = nil,
        campaignID: Int64? = nil, triggerKey: String? = nil, deviceID: Int64? = nil, message: JSON? = nil,
        pullable: Bool = false
    ) {
        self.campaignID = campaignID
        self.triggerKey = triggerKey
        self.deviceID = deviceID
        self.message = message
        self.pullable = pullable
        self.businessID = businessID
        self.userID = userID
        self.kind = kind
        self.event = event
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.sound = sound
        self.media = media
        self.extras = extras
        self.pushStyle = pushStyle
        self.visibleInInbox = visibleInInbox
        self.rewardID = rewardID
        self.collapseID = collapseID
    }
}

/// An entry in a user's inbox (Punchh's "user notification"): a draft as stored, with its id and read state.
/// The draft's fields read as the entry's own (`entry.title`, `entry.extras`).
@dynamicMemberLookup
public struct InboxEntry: Sendable, Equatable {
    /// Store id: the `n` of the push payload.
    public var id: Int64
    /// What the event drafted: recipient, texts, media, payload keys, how it is pushed.
    public var draft: NotificationDraft
    /// When it was created.
    public var createdAt: Timestamp
    /// When the user read it, if they have.
    public var readAt: Timestamp?
    /// When a pull handed it to its device, if one has.
    public var pulledAt: Timestamp?

    /// The entry `draft` became.
    public init(
        id: Int64, draft: NotificationDraft, createdAt: Timestamp, readAt: Timestamp? = nil, pulledAt: Timestamp? = nil
    ) {
        self.pulledAt = pulledAt
        self.id = id
        self.draft = draft
        self.createdAt = createdAt
        self.readAt = readAt
    }

    /// A field of the draft.
    @inlinable
    public subscript<Value>(dynamicMember field: WritableKeyPath<NotificationDraft, Value>) -> Value {
        get { draft[keyPath: field] }
        set { draft[keyPath: field] = newValue }
    }
}

/// What the app reported about a notification (for campaign reports).
public struct NotificationEventKind: Sendable, Hashable, CustomStringConvertible {
    /// The event's name.
    public let rawValue: String
    /// The event named `rawValue`.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let received = NotificationEventKind("received")
    public static let displayed = NotificationEventKind("displayed")
    public static let opened = NotificationEventKind("opened")
    public static let read = NotificationEventKind("read")
    public static let cta = NotificationEventKind("cta")
    public static let dismissed = NotificationEventKind("dismissed")
    public static let mediaViewed = NotificationEventKind("media_viewed")
    public static let mediaCompleted = NotificationEventKind("media_completed")
    public static let surveyStarted = NotificationEventKind("survey_started")
    public static let surveySubmitted = NotificationEventKind("survey_submitted")

    public var description: String { rawValue }
}
