import HeraldModel
import HeraldStore

/// A campaign's message to one device, as the device reads it: the campaign's wording with the entry's id.
public enum CampaignMessages {
    /// The message `entry` carries: its own (`entry.message`) if it has one, else the campaign's `template` with
    /// the entry's id and the campaign's.
    public static func message(_ entry: InboxEntry, template: JSON?) -> HeraldMessage? {
        guard var message = (entry.message ?? template).flatMap(HeraldMessage.init(json:)) else { return nil }
        message.id = String(entry.id)
        if let campaignID = entry.campaignID { message.campaignID = String(campaignID) }
        return message
    }
}
