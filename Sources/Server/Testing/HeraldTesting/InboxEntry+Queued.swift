import HeraldDeliveryPorts
import HeraldStore

extension InboxEntry {
    /// The entry as a claimed job carries it: what tests compare a claim with, or hand the engine as one.
    public var queued: QueuedNotification {
        QueuedNotification(
            id: id, businessID: draft.businessID, title: draft.title, subtitle: draft.subtitle, body: draft.body,
            sound: draft.sound, media: draft.media, extras: draft.extras, pushStyle: draft.pushStyle,
            collapseID: draft.collapseID, campaignID: draft.campaignID, createdAt: createdAt)
    }
}
