import HeraldModel

/// What a claimed job sends: its inbox entry, as much of it as a push needs. The engine words the push from it;
/// the entry's id is the payload's `n`.
public struct QueuedNotification: Sendable, Equatable {
    /// The inbox entry's id.
    public var id: Int64
    /// The business whose credential sends it.
    public var businessID: Int64
    /// Alert title.
    public var title: String
    /// Alert subtitle.
    public var subtitle: String?
    /// Alert body.
    public var body: String
    /// Alert sound, or nil for none.
    public var sound: String?
    /// Rich media to attach.
    public var media: MediaAttachment?
    /// Event-specific payload keys; `n` and `aps` are added when the push is worded.
    public var extras: JSON
    /// How it is pushed.
    public var pushStyle: PushStyle
    /// Pushes sharing it replace one another on the device.
    public var collapseID: String?
    /// The campaign that sent it, if one did (its counters count the outcome).
    public var campaignID: Int64?
    /// When the entry was written: a push expires some time after.
    public var createdAt: Timestamp

    /// An entry as a push sends it.
    public init(
        id: Int64, businessID: Int64, title: String, subtitle: String? = nil, body: String,
        sound: String? = "default", media: MediaAttachment? = nil, extras: JSON = .object([]),
        pushStyle: PushStyle = .alert, collapseID: String? = nil, campaignID: Int64? = nil, createdAt: Timestamp
    ) {
        self.id = id
        self.businessID = businessID
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.sound = sound
        self.media = media
        self.extras = extras
        self.pushStyle = pushStyle
        self.collapseID = collapseID
        self.campaignID = campaignID
        self.createdAt = createdAt
    }
}
