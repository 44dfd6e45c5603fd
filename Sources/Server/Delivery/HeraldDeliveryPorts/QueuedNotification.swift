import HeraldModel

/// What a claimed job sends: its inbox entry, as much of it as a push needs. The engine words the push from it;
/// the entry's id is the payload's `n`.
public struct QueuedNotification: Sendable, Equatable {
    /// The inbox entry's id.
    package var id: Int64
    /// The business whose credential sends it.
    package var businessID: Int64
    /// Alert title.
    package var title: String
    /// Alert subtitle.
    package var subtitle: String?
    /// Alert body.
    package var body: String
    /// Alert sound, or nil for none.
    package var sound: String?
    /// Rich media to attach.
    package var media: MediaAttachment?
    /// Event-specific payload keys; `n` and `aps` are added when the push is worded.
    package var extras: JSON
    /// How it is pushed.
    package var pushStyle: PushStyle
    /// Pushes sharing it replace one another on the device.
    package var collapseID: String?
    /// The campaign that sent it, if one did (its counters count the outcome).
    package var campaignID: Int64?
    /// When the entry was written: a push expires some time after.
    package var createdAt: Timestamp

    /// An entry as a push sends it.
    package init(
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
