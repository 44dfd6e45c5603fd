import HeraldModel

/// Everything Herald keeps. Each backend (memory, SQLite, PostgreSQL) implements all of it and passes the
/// same conformance suite (`StoreConformance` in HeraldTesting).
///
/// Operations that must be atomic are single methods: the store, not its caller, owns transactions.
/// Methods are synchronous and thread-safe; they are called from many request threads at once.
public protocol Store: BusinessStore, UserStore, InboxStore, DeliveryQueue, LoyaltyStore {
    /// A number that changes whenever this process commits a change to the store, or nil when the backend does
    /// not count them. What was read while it had one value is still current while it keeps that value — as
    /// far as this process's writes go; other processes' (other nodes') are not counted.
    var localChangeCount: UInt64? { get }
}

extension Store {
    public var localChangeCount: UInt64? { nil }
}

/// Businesses, their credentials, templates and locations.
public protocol BusinessStore: Sendable {
    /// Creates a business. `clientID` and `posKeyHash` are unique.
    func createBusiness(name: String, clientID: String, sealedSecret: [UInt8], posKeyHash: String, at now: Timestamp)
        throws -> Business
    /// The business with `id`.
    func business(id: Int64) throws -> Business?
    /// The business whose app signs as `clientID`.
    func business(clientID: String) throws -> Business?
    /// The business whose POS key hashes to `posKeyHash`.
    func business(posKeyHash: String) throws -> Business?
    /// Every business, by id.
    func businesses() throws -> [Business]
    /// Replaces a business's settings.
    func updateSettings(businessID: Int64, _ settings: BusinessSettings) throws

    /// Sets (replaces) a business's credential for `credential.platform`; clears any broken mark.
    func setCredential(_ credential: PushCredential) throws
    /// The credential of `businessID` for `platform`.
    func credential(businessID: Int64, platform: PushPlatform) throws -> PushCredential?
    /// Marks a credential broken (reason set) or healthy (nil), unless it was replaced after `observedAt` (an
    /// answer to a push sent with the key before); returns whether it marked it.
    @discardableResult
    func markCredential(businessID: Int64, platform: PushPlatform, brokenReason: String?, observedAt: Timestamp) throws
        -> Bool
    /// Every credential marked broken.
    func brokenCredentials() throws -> [PushCredential]

    /// Saves a template (replacing the business's earlier one for that event).
    func saveTemplate(businessID: Int64, _ template: NotificationTemplate, at now: Timestamp) throws
    /// The business's own template for `event`, if it saved one.
    func template(businessID: Int64, event: EventName) throws -> NotificationTemplate?
    /// Every template the business saved, in one read.
    func templates(businessID: Int64) throws -> [NotificationTemplate]

    /// Creates a location.
    func createLocation(businessID: Int64, name: String, storeNumber: String?, at now: Timestamp) throws -> Location
    /// The location `id` of `businessID` (nil for another business's location).
    func location(businessID: Int64, id: Int64) throws -> Location?
}

/// Users, their devices and sessions.
public protocol UserStore: Sendable {
    /// Creates a user; a taken email (or phone) is `StoreError.conflict` with `field` set.
    func createUser(_ user: NewUser, at now: Timestamp) throws -> User
    /// The user `id` of `businessID` (nil for another business's user).
    func user(businessID: Int64, id: Int64) throws -> User?
    /// The user with `email` (lower-cased) in `businessID`.
    func user(businessID: Int64, email: String) throws -> User?
    /// The user with `phone` in `businessID`.
    func user(businessID: Int64, phone: String) throws -> User?
    /// Applies `changes`; a taken email is a conflict.
    func updateUser(businessID: Int64, id: Int64, _ changes: UserChanges, at now: Timestamp) throws -> User

    /// Records the device a user calls from and sets or clears its token, atomically:
    /// the device moves to `userID` if someone else used it, and a token held by another device moves here.
    func registerDevice(businessID: Int64, userID: Int64, _ registration: DeviceRegistration, at now: Timestamp) throws
        -> Device
    /// Clears a device's token (logout).
    func clearToken(deviceID: Int64, at now: Timestamp) throws
    /// The devices signed in as `userID`.
    func devices(userID: Int64) throws -> [Device]
    /// The device `id`.
    func device(id: Int64) throws -> Device?

    /// Stores a new session.
    func createSession(
        tokenHash: String, businessID: Int64, userID: Int64, deviceID: Int64?, expiresAt: Timestamp, at now: Timestamp
    ) throws -> Session
    /// The session whose token hashes to `tokenHash` (active or not).
    func session(tokenHash: String) throws -> Session?
    /// The session whose token hashes to `tokenHash` with its user, in one read (every signed-in call does this).
    func sessionWithUser(tokenHash: String) throws -> (session: Session, user: User)?
    /// Revokes a session.
    func revokeSession(id: Int64, at now: Timestamp) throws
}

/// Inbox entries and what the app reports about them.
public protocol InboxStore: Sendable {
    /// Writes the entries and, in the same transaction, a delivery job for every device with a token of each
    /// recipient (unless the draft's push style is `.none`). Returns the entries in draft order.
    func createNotifications(_ drafts: [NotificationDraft], at now: Timestamp) throws -> [InboxEntry]
    /// A user's visible entries, newest first, at most `limit`, skipping `offset`.
    func notifications(userID: Int64, limit: Int, offset: Int) throws -> [InboxEntry]
    /// A user's entry `id` (nil for another user's or a deleted one).
    func notification(userID: Int64, id: Int64) throws -> InboxEntry?
    /// The entry `id` of a business (nil for another business's).
    func notification(businessID: Int64, id: Int64) throws -> InboxEntry?
    /// Deletes a user's entry; false when it isn't theirs or is already gone.
    func deleteNotification(userID: Int64, id: Int64, at now: Timestamp) throws -> Bool
    /// Marks a user's entries read, in one transaction, and records `event` (`opened` when the app was opened
    /// through the push) for each of them. Ids of other users' entries, deleted ones and repeats are ignored.
    func markRead(userID: Int64, ids: [Int64], event: NotificationEventKind?, at now: Timestamp) throws -> ReadMarks
    /// The user's unread visible entries: the badge.
    func unreadCount(userID: Int64) throws -> Int
    /// Records an app-reported event about a user's entry; false when the entry isn't theirs.
    func recordEvent(userID: Int64, notificationID: Int64, kind: NotificationEventKind, at now: Timestamp) throws
        -> Bool
    /// How many events of `kind` an entry has.
    func eventCount(notificationID: Int64, kind: NotificationEventKind) throws -> Int
}

extension InboxStore {
    /// Marks a user's entries read, recording no event.
    public func markRead(userID: Int64, ids: [Int64], at now: Timestamp) throws -> ReadMarks {
        try markRead(userID: userID, ids: ids, event: nil, at: now)
    }
}

/// What marking entries read did.
public struct ReadMarks: Sendable, Equatable {
    /// The ids that are the user's visible entries, once each, in the order given: read before or now.
    public var ids: [Int64]
    /// How many of them were unread until now.
    public var changed: Int

    /// A result.
    public init(ids: [Int64], changed: Int) {
        self.ids = ids
        self.changed = changed
    }
}

/// The durable delivery queue: jobs are rows claimed under a lease.
public protocol DeliveryQueue: Sendable {
    /// Claims up to `limit` due jobs (queued and due, or whose lease ran out) for `owner` until `leaseUntil`.
    func claimDeliveries(owner: String, limit: Int, leaseUntil: Timestamp, at now: Timestamp) throws
        -> [ClaimedDelivery]
    /// Records attempts' outcomes; reports from owners who lost their lease are ignored. Returns how many applied.
    @discardableResult
    func completeDeliveries(_ completions: [DeliveryCompletion], at now: Timestamp) throws -> Int
    /// Hands `owner`'s leased jobs back to the queue, due now (graceful shutdown).
    @discardableResult
    func releaseDeliveries(owner: String, at now: Timestamp) throws -> Int
    /// The jobs of one inbox entry.
    func deliveries(notificationID: Int64) throws -> [Delivery]
    /// Counts for `/metrics`.
    func queueDepth(at now: Timestamp) throws -> QueueDepth
    /// Moves every queued job of `businessID` on `platform` to be due at `at` (a fixed credential).
    func rescheduleDeliveries(businessID: Int64, platform: PushPlatform, dueAt: Timestamp) throws
}
