import HeraldModel
import HeraldStore

extension InboxEntry {
    /// The message as the device API hands it (pull, `GET /api/v1/notifications/{id}`, a geofence visit's answer):
    /// the entry's own stored message, else its campaign's `template` (a fan-out stores the message once, on the
    /// campaign), with this entry's id and its campaign's as strings. An entry with neither that reads as a
    /// message is given as a plain one of its title, body and media, so the SDK can always read it.
    package func deviceMessage(template: JSON? = nil) -> HeraldMessage {
        let id = String(self.id)
        let campaignID = draft.campaignID.map(String.init)
        var pairs = (draft.message ?? template)?.objectValue ?? []
        pairs.removeAll { $0.key == "id" || ($0.key == "campaign_id" && campaignID != nil) }
        pairs.insert((key: "id", value: .string(id)), at: 0)
        if let campaignID { pairs.insert((key: "campaign_id", value: .string(campaignID)), at: 1) }
        if let message = HeraldMessage(json: .object(pairs)) { return message }
        let media = draft.media.map { attachment in
            MessageMedia(type: MessageMediaType(attachmentType: attachment.type) ?? .file, url: attachment.url)
        }
        return HeraldMessage(
            id: id, campaignID: campaignID, headline: draft.title, body: draft.body, media: media)
    }
}

/// The device messages of entries read in one transaction, each campaign's template read once.
struct DeviceMessages {
    let tx: StoreTransaction
    private var templates: [Int64: JSON?] = [:]

    init(_ tx: StoreTransaction) { self.tx = tx }

    /// `entry` as its device reads it.
    mutating func message(_ entry: InboxEntry) throws -> HeraldMessage {
        guard entry.draft.message == nil, let campaignID = entry.draft.campaignID else {
            return entry.deviceMessage()
        }
        if templates[campaignID] == nil {
            templates[campaignID] = .some(
                try tx.campaigns.find(businessID: entry.draft.businessID, id: campaignID)?.message)
        }
        return entry.deviceMessage(template: templates[campaignID] ?? nil)
    }
}

extension Device {
    /// Whether `entry` is a message for this device: addressed to it, or a campaign's message to the inbox of the
    /// user signed in on it. Only such entries are handed to it, and counted from its events.
    package func receives(_ entry: InboxEntry) -> Bool {
        guard entry.draft.businessID == businessID else { return false }
        if let deviceID = entry.draft.deviceID { return deviceID == id }
        guard let userID, entry.draft.userID == userID else { return false }
        return entry.draft.message != nil || entry.draft.campaignID != nil
    }
}
