import HeraldModel
import HeraldStore

extension StoreTransaction {
    /// The one rule for a push token a device registers, whichever API it comes by — the mobile API's sign-up, login
    /// and profile update, the device API's install registration and update: one token, one device, one user. `device`
    /// (about to be saved, holding the token it sent) takes it from whichever other device of the business holds it,
    /// when it belongs to a user: the latest signed-in registration that presents a token owns it (as Punchh has it, a
    /// token reused at a new sign-up moves to the new user), so the earlier user's pushes stop reaching that phone. A
    /// device of nobody (an SDK install not identified) takes it only from other devices of nobody (an app reinstalled
    /// under a new install id); when a user's device holds it, `device` holds no token, and that user's pushes go on
    /// reaching the phone until someone signs in on it. The database's unique index on tokens keeps one holder however
    /// registrations interleave: one that lost a race fails as a conflict on `token`, and runs again
    /// (`Store.transactionClaimingTokens`).
    ///
    /// ```swift
    /// if device.apply(details, at: now) != nil { try tx.claimPushToken(for: &device, at: now) }
    /// ```
    func claimPushToken(for device: inout Device, at now: Timestamp) throws {
        guard let token = device.token else { return }
        if device.userID == nil,
            let holder = try devices.find(businessID: device.businessID, platform: device.platform, token: token),
            holder.id != device.id, holder.userID != nil
        {
            device.token = nil
            return
        }
        try devices.releaseToken(
            token, platform: device.platform, businessID: device.businessID, except: device.id, at: now)
    }
}

extension Store {
    /// Runs `body` in one transaction, again (up to five times in all) when it lost a race for a push token to
    /// another transaction: the unique index on tokens refused it, or the database broke a deadlock or could not
    /// order it. Whatever `body` does is written once: a failed run is rolled back.
    func transactionClaimingTokens<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        var attempts = 0
        while true {
            do {
                return try transaction(body)
            } catch let error as StoreError
                where attempts < 4 && (error.code == .retryable || (error.code == .conflict && error.field == "token"))
            {
                attempts += 1
            }
        }
    }
}
