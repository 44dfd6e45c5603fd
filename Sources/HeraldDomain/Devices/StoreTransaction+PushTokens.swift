import HeraldModel
import HeraldStore

extension StoreTransaction {
    /// The one rule for a push token a device registers, whichever API it comes by — the mobile API's sign-up,
    /// login and profile update, the device API's install registration and update: `device` (already saved or about
    /// to be, holding `token`) takes it from the other devices of its business that belong to its user or to nobody
    /// (the same phone's app reinstalled under a new device id, an install never signed in). A device of another
    /// user keeps it: only the phone receives on its token, so sending one proves nothing, and both devices hold it
    /// until the provider answers that it is dead for one of them (the delivery queue prunes that device's token,
    /// `DeliveryCompletion.Outcome.pruned`) or its user logs out. Meanwhile that phone may receive the pushes of
    /// both — the same phone after the app was deleted and signed in again as someone else receives as soon as it
    /// says so, and a stranger who sends another's token receives nothing — but a campaign's once, through the
    /// newer holder (`AudienceRecords.tokenHeldByANewerDevice`).
    ///
    /// ```swift
    /// if let token = device.apply(details, at: now) { try tx.claimPushToken(token, for: device, at: now) }
    /// ```
    func claimPushToken(_ token: String, for device: Device, at now: Timestamp) throws {
        try devices.releaseToken(
            token, platform: device.platform, businessID: device.businessID, except: device.id, ownedBy: device.userID,
            at: now)
    }
}
