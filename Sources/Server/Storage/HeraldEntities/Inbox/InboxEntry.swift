import HeraldModel

/// What an event puts in a user's inbox, and how it is pushed.
public struct NotificationDraft: Sendable, Equatable {
    /// Owning business.
    package var businessID: Int64
    /// Recipient (nil: a campaign's message to a device nobody is signed in on).
    package var userID: Int64?
    /// Inbox grouping.
    package var kind: InboxKind
    /// The event that produced it (`checkin`, `news`, …).
    package var event: String
    /// Alert title.
    package var title: String
    /// Alert subtitle.
    package var subtitle: String?
    /// Alert body; the inbox's `message`.
    package var body: String
    /// Alert sound (`default`), or nil for none.
    package var sound: String?
    /// Rich media to attach.
    package var media: MediaAttachment?
    /// Event-specific payload keys (`f`, `i`, `p`, `t`, `u`, `s`, `rd`, `gc`); `n` and `aps` are added at send time.
    package var extras: JSON
    /// How it is pushed.
    package var pushStyle: PushStyle
    /// False for entries that only carry a push (the silent gift-card update).
    package var visibleInInbox: Bool
    /// The offer granted with it, if any.
    package var rewardID: Int64?
    /// Pushes sharing it replace one another on the device (`apns-collapse-id`, FCM's `collapse_key`).
    package var collapseID: String?
    /// The campaign that sent it, if one did.
    package var campaignID: Int64?
    /// What sent it (`launch`, a geofence visit's key): a device, or a user's inbox, gets a campaign's message once
    /// per trigger.
    package var triggerKey: String?
    /// The one device a campaign's message is for (nil for an entry addressed to a user and all their devices).
    package var deviceID: Int64?
    /// The message as the SDK reads it (`HeraldMessage`'s JSON, its id this entry's), for a campaign's message.
    package var message: JSON?
    /// Whether a pull hands it to its device (once).
    package var pullable: Bool

    /// A draft.
    package init(
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
    package var id: Int64
    /// What the event drafted: recipient, texts, media, payload keys, how it is pushed.
    public var draft: NotificationDraft
    /// When it was created.
    package var createdAt: Timestamp
    /// When the user read it, if they have.
    package var readAt: Timestamp?
    /// When a pull handed it to its device, if one has.
    package var pulledAt: Timestamp?

    /// The entry `draft` became.
    package init(
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
package struct NotificationEventKind: Sendable, Hashable, CustomStringConvertible {
    /// The event's name.
    package let rawValue: String
    /// The event named `rawValue`.
    package init(_ rawValue: String) { self.rawValue = rawValue }

    package static let received = NotificationEventKind("received")
    package static let displayed = NotificationEventKind("displayed")
    package static let opened = NotificationEventKind("opened")
    package static let read = NotificationEventKind("read")
    package static let cta = NotificationEventKind("cta")
    package static let dismissed = NotificationEventKind("dismissed")
    package static let mediaViewed = NotificationEventKind("media_viewed")
    package static let mediaCompleted = NotificationEventKind("media_completed")
    package static let surveyStarted = NotificationEventKind("survey_started")
    package static let surveySubmitted = NotificationEventKind("survey_submitted")

    package var description: String { rawValue }
}
