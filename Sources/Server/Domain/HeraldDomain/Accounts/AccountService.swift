import HeraldModel
import HeraldStore

/// Users, the devices they call from, and their sessions: sign-up (with its welcome), profile changes, push
/// tokens, log-out. Password hashing is the caller's: this service receives hashes.
public struct AccountService: Sendable {
    let store: Store
    let notifications: NotificationService
    let loyalty: LoyaltyService
    let clock: WallClock
    /// Most devices one user has: registering one more deletes the least recently updated.
    package var maxDevicesPerUser = 10
    /// How the codes proving an imported customer's email are limited.
    package var emailCodes = EmailCodePolicy()

    /// The service over `store`.
    package init(store: Store, notifications: NotificationService, loyalty: LoyaltyService, clock: WallClock) {
        self.store = store
        self.notifications = notifications
        self.loyalty = loyalty
        self.clock = clock
    }

    /// Signs a user up, in one transaction: the user, the device they call from (`device`, given the new user; nil
    /// for none), the `signup` notice and the business's welcome offer (when it has one available now). A taken
    /// email or phone is a `StoreError.conflict` naming it, decided by the database even when two sign-ups race.
    package func signUp(
        _ new: NewUser, business: Business, emailProven: Bool = false,
        device registration: (User) throws -> DeviceRegistration?
    ) throws -> (user: User, device: Device?) {
        let now = clock.now()
        return try store.transactionClaimingTokens { tx in
            let user = try signedUpUser(new, mayClaim: emailProven || business.settings.importTrusted, tx, now)
            let device = try registration(user).map {
                try register($0, userID: user.id, businessID: business.id, tx, now)
            }
            let notifier = notifications.notifier(for: business, in: tx, at: now)
            try notifier.notify(Notice(user: user, event: .signup, extras: ["u": .int(user.id)]))
            if let offerID = business.settings.welcomeOfferID,
                let offer = try tx.offers.find(businessID: business.id, id: offerID), offer.isAvailable(at: now)
            {
                _ = try loyalty.grant(
                    offer, to: user, source: "welcome_offer", event: .welcomeOffer, tx, notifier, at: now)
            }
            return (user, device)
        }
    }

    /// The imported customer with `email` nobody has signed up as yet, when a sign-up into it needs the email
    /// proven first (the business does not trust its import: `BusinessSettings.importTrusted`).
    package func importedAwaitingProof(business: Business, email: String) throws -> User? {
        guard !business.settings.importTrusted else { return nil }
        return try store.read { tx in
            guard let user = try tx.users.find(businessID: business.id, email: email), user.awaitsSignUp else {
                return nil
            }
            return user
        }
    }

    /// A new user, or the one an import made with this email if nobody has signed up as them yet (no password):
    /// a business's customers imported from its CRM sign up in the app into their own record — its points,
    /// rewards and inbox — only when `mayClaim` (the email proven, or the import trusted); else a 422 on
    /// `email_code`.
    private func signedUpUser(_ new: NewUser, mayClaim: Bool, _ tx: StoreTransaction, _ now: Timestamp) throws
        -> User
    {
        guard let imported = try tx.users.find(businessID: new.businessID, email: new.email), imported.awaitsSignUp
        else { return try tx.users.insert(new, at: now) }
        guard mayClaim else {
            throw DomainError(.invalid, field: "email_code", "prove the email with the code mailed to it")
        }
        guard let claimed = try tx.users.claimImported(id: imported.id, by: new, at: now) else {
            throw StoreError(.conflict, field: "email", "email already taken")
        }
        try tx.emailCodes.delete(userID: claimed.id)
        return claimed
    }

    /// Records the device a user calls from and sets or clears its token, atomically.
    package func registerDevice(businessID: Int64, userID: Int64, _ registration: DeviceRegistration) throws -> Device {
        let now = clock.now()
        return try store.transactionClaimingTokens { tx in
            // Locked: one user's registrations pass a token between their devices one at a time.
            guard try tx.users.lock(businessID: businessID, id: userID) != nil else {
                throw DomainError.notFound("user")
            }
            return try register(registration, userID: userID, businessID: businessID, tx, now)
        }
    }

    /// The device named by `registration` made or moved to `userID`, its token set as asked
    /// (`StoreTransaction.claimPushToken`). A device of another user, and an SDK install that is not the user's,
    /// moves only as `DeviceRegistration.mayTakeOver` allows; else the caller gets a record of their own for it. A
    /// user past `maxDevicesPerUser` loses their least recently updated devices.
    func register(
        _ registration: DeviceRegistration, userID: Int64, businessID: Int64, _ tx: StoreTransaction, _ now: Timestamp
    ) throws -> Device {
        var key = registration.deviceKey
        if let existing = try tx.devices.lock(businessID: businessID, key: key), existing.userID != userID,
            !registration.mayTakeOver(existing)
        {
            key = DeviceRegistration.ownKey(key, userID: userID)
        }
        var (device, created) = try tx.devices.findOrInsert(
            businessID: businessID, key: key, userID: userID, platform: registration.platform, at: now)
        let moved = device.userID != userID
        if device.register(registration, by: userID, at: now) != nil { try tx.claimPushToken(for: &device, at: now) }
        try tx.devices.save(device)
        if created || moved { try prune(userID: userID, keeping: device.id, tx) }
        return device
    }

    /// Deletes the least recently updated devices of `userID` beyond `maxDevicesPerUser`, never `keeping`.
    private func prune(userID: Int64, keeping: Int64, _ tx: StoreTransaction) throws {
        let devices = try tx.devices.all(userID: userID)
        guard devices.count > max(1, maxDevicesPerUser) else { return }
        let oldest = devices.filter { $0.id != keeping }.sorted { ($0.updatedAt, $0.id) < ($1.updatedAt, $1.id) }
        for device in oldest.prefix(devices.count - max(1, maxDevicesPerUser)) {
            try tx.devices.delete(id: device.id)
        }
    }

    /// Applies `changes` to a user's profile (a taken email or phone is a conflict) and, with `registration`,
    /// records the calling device's token, in one transaction.
    package func updateProfile(user: User, _ changes: UserChanges, device registration: DeviceRegistration?) throws
        -> User
    {
        let now = clock.now()
        return try store.transactionClaimingTokens { tx in
            guard var current = try tx.users.lock(businessID: user.businessID, id: user.id) else {
                throw DomainError.notFound("user")
            }
            current.apply(changes, at: now)
            try tx.users.saveProfile(current)
            if let registration {
                _ = try register(registration, userID: user.id, businessID: user.businessID, tx, now)
            }
            return current
        }
    }

    /// Stores a new session for a token (kept only as its hash).
    package func startSession(tokenHash: String, user: User, deviceID: Int64?, expiresAt: Timestamp) throws -> Session {
        let now = clock.now()
        return try store.transaction { tx in
            try tx.sessions.insert(
                tokenHash: tokenHash, businessID: user.businessID, userID: user.id, deviceID: deviceID,
                expiresAt: expiresAt, at: now)
        }
    }

    /// Logs a session out: revokes it and clears the push token of every device that was signed in through it —
    /// the session's device, the device making this call (`deviceKey`, or the user's own record for it when that id
    /// is another's: a token may have been registered on it after sign-in), and for a session that named no device,
    /// the devices under the user's own key (tokens registered without naming one) — of the devices still signed in
    /// as this user.
    package func logOut(session: Session, user: User, deviceKey: String?) throws {
        let now = clock.now()
        let named = deviceKey.map { [$0, DeviceRegistration.ownKey($0, userID: user.id)] } ?? []
        try store.transaction { tx in
            try tx.sessions.revoke(id: session.id, at: now)
            for device in try tx.devices.all(userID: user.id)
            where device.id == session.deviceID || named.contains(device.deviceKey)
                || (session.deviceID == nil && DeviceRegistration.isUserKey(device.deviceKey, userID: user.id))
            {
                try tx.devices.clearToken(id: device.id, at: now)
            }
        }
    }
}
