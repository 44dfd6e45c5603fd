import HeraldModel
import Synchronization

/// A complete store in memory: for tests, and to show what each operation means without SQL.
/// Every operation runs under one lock, so each is atomic like a transaction.
public final class MemoryStore: Store {
    struct State {
        var nextID: Int64 = 1
        var businesses: [Int64: Business] = [:]
        var credentials: [String: PushCredential] = [:]
        var templates: [String: NotificationTemplate] = [:]
        var locations: [Int64: Location] = [:]
        var users: [Int64: User] = [:]
        var devices: [Int64: Device] = [:]
        var sessions: [Int64: Session] = [:]
        var notifications: [Int64: InboxEntry] = [:]
        var deletedNotifications: Set<Int64> = []
        var notificationsByUser: [Int64: [Int64]] = [:]
        var events: [(notificationID: Int64, userID: Int64, kind: NotificationEventKind, at: Timestamp)] = []
        var deliveries: [Int64: Delivery] = [:]
        var leases: [Int64: (owner: String, until: Timestamp)] = [:]
        var offers: [Int64: Offer] = [:]
        var rewards: [Int64: Reward] = [:]
        var checkins: [Int64: Checkin] = [:]
        var redemptions: [Int64: Redemption] = [:]
        var giftCards: [Int64: GiftCard] = [:]
        var surveys: [Int64: Survey] = [:]
        var userSurveys: [Int64: UserSurvey] = [:]

        mutating func makeID() -> Int64 {
            defer { nextID += 1 }
            return nextID
        }
    }

    let state = Mutex(State())
    let makeUUID: @Sendable () -> String

    /// An empty store; `makeUUID` makes the stable `apns-id` of each delivery.
    public init(makeUUID: @escaping @Sendable () -> String = { UUIDString.random() }) {
        self.makeUUID = makeUUID
    }

    // MARK: - Businesses

    public func createBusiness(
        name: String, clientID: String, sealedSecret: [UInt8], posKeyHash: String, at now: Timestamp
    ) throws -> Business {
        try state.withLock { state in
            if state.businesses.values.contains(where: { $0.clientID == clientID }) {
                throw StoreError(.conflict, field: "client", "client id already taken")
            }
            let business = Business(
                id: state.makeID(), name: name, clientID: clientID, sealedSecret: sealedSecret, posKeyHash: posKeyHash,
                createdAt: now)
            state.businesses[business.id] = business
            return business
        }
    }

    public func business(id: Int64) throws -> Business? { state.withLock { $0.businesses[id] } }

    public func business(clientID: String) throws -> Business? {
        state.withLock { $0.businesses.values.first { $0.clientID == clientID } }
    }

    public func business(posKeyHash: String) throws -> Business? {
        state.withLock { $0.businesses.values.first { $0.posKeyHash == posKeyHash } }
    }

    public func businesses() throws -> [Business] {
        state.withLock { $0.businesses.values.sorted { $0.id < $1.id } }
    }

    public func updateSettings(businessID: Int64, _ settings: BusinessSettings) throws {
        try state.withLock { state in
            guard state.businesses[businessID] != nil else { throw StoreError.notFound("business") }
            state.businesses[businessID]!.settings = settings
        }
    }

    private static func credentialKey(_ businessID: Int64, _ platform: PushPlatform) -> String {
        "\(businessID)/\(platform)"
    }

    public func setCredential(_ credential: PushCredential) throws {
        try state.withLock { state in
            guard state.businesses[credential.businessID] != nil else { throw StoreError.notFound("business") }
            var stored = credential
            stored.brokenReason = nil
            state.credentials[Self.credentialKey(credential.businessID, credential.platform)] = stored
        }
    }

    public func credential(businessID: Int64, platform: PushPlatform) throws -> PushCredential? {
        state.withLock { $0.credentials[Self.credentialKey(businessID, platform)] }
    }

    public func markCredential(businessID: Int64, platform: PushPlatform, brokenReason: String?, observedAt: Timestamp)
        throws -> Bool
    {
        state.withLock { state in
            let key = Self.credentialKey(businessID, platform)
            guard let credential = state.credentials[key], credential.updatedAt <= observedAt else { return false }
            state.credentials[key]!.brokenReason = brokenReason
            return true
        }
    }

    public func brokenCredentials() throws -> [PushCredential] {
        state.withLock { state in
            state.credentials.values.filter { $0.brokenReason != nil }
                .sorted { ($0.businessID, $0.platform.rawValue) < ($1.businessID, $1.platform.rawValue) }
        }
    }

    public func saveTemplate(businessID: Int64, _ template: NotificationTemplate, at now: Timestamp) throws {
        try state.withLock { state in
            guard state.businesses[businessID] != nil else { throw StoreError.notFound("business") }
            state.templates["\(businessID)/\(template.event)"] = template
        }
    }

    public func template(businessID: Int64, event: EventName) throws -> NotificationTemplate? {
        state.withLock { $0.templates["\(businessID)/\(event)"] }
    }

    public func templates(businessID: Int64) throws -> [NotificationTemplate] {
        state.withLock { state in EventName.all.compactMap { state.templates["\(businessID)/\($0)"] } }
    }

    public func createLocation(businessID: Int64, name: String, storeNumber: String?, at now: Timestamp) throws
        -> Location
    {
        try state.withLock { state in
            guard state.businesses[businessID] != nil else { throw StoreError.notFound("business") }
            let location = Location(
                id: state.makeID(), businessID: businessID, name: name, storeNumber: storeNumber, createdAt: now)
            state.locations[location.id] = location
            return location
        }
    }

    public func location(businessID: Int64, id: Int64) throws -> Location? {
        state.withLock { state in state.locations[id].flatMap { $0.businessID == businessID ? $0 : nil } }
    }

    // MARK: - Users

    public func createUser(_ new: NewUser, at now: Timestamp) throws -> User {
        try state.withLock { state in
            try Self.checkUnique(&state, businessID: new.businessID, email: new.email, phone: new.phone, except: nil)
            let user = User(
                id: state.makeID(), businessID: new.businessID, email: new.email, passwordHash: new.passwordHash,
                firstName: new.firstName, lastName: new.lastName, phone: new.phone, createdAt: now, updatedAt: now)
            state.users[user.id] = user
            return user
        }
    }

    private static func checkUnique(
        _ state: inout State, businessID: Int64, email: String?, phone: String?, except: Int64?
    ) throws {
        for user in state.users.values where user.businessID == businessID && user.id != except {
            if let email, user.email == email { throw StoreError(.conflict, field: "email", "email already taken") }
            if let phone, user.phone == phone { throw StoreError(.conflict, field: "phone", "phone already taken") }
        }
    }

    public func user(businessID: Int64, id: Int64) throws -> User? {
        state.withLock { state in state.users[id].flatMap { $0.businessID == businessID ? $0 : nil } }
    }

    public func user(businessID: Int64, email: String) throws -> User? {
        state.withLock { state in state.users.values.first { $0.businessID == businessID && $0.email == email } }
    }

    public func user(businessID: Int64, phone: String) throws -> User? {
        state.withLock { state in state.users.values.first { $0.businessID == businessID && $0.phone == phone } }
    }

    public func updateUser(businessID: Int64, id: Int64, _ changes: UserChanges, at now: Timestamp) throws -> User {
        try state.withLock { state in
            guard var user = state.users[id], user.businessID == businessID else { throw StoreError.notFound("user") }
            try Self.checkUnique(
                &state, businessID: businessID, email: changes.email, phone: changes.phone ?? nil, except: id)
            user.apply(changes, at: now)
            state.users[id] = user
            return user
        }
    }

    public func registerDevice(businessID: Int64, userID: Int64, _ registration: DeviceRegistration, at now: Timestamp)
        throws -> Device
    {
        try state.withLock { state in
            guard state.users[userID]?.businessID == businessID else { throw StoreError.notFound("user") }
            var device: Device
            if let existing = state.devices.values.first(where: {
                $0.businessID == businessID && $0.deviceKey == registration.deviceKey
            }) {
                device = existing
            } else {
                device = Device(
                    id: state.makeID(), businessID: businessID, userID: userID, deviceKey: registration.deviceKey,
                    platform: registration.platform, token: nil, tokenUpdatedAt: nil, userAgent: nil, createdAt: now,
                    updatedAt: now)
            }
            if let token = device.register(registration, by: userID, at: now) {
                for (id, other) in state.devices
                where id != device.id && other.businessID == businessID && other.platform == device.platform
                    && other.token == token
                {
                    state.devices[id]!.token = nil
                    state.devices[id]!.updatedAt = now
                }
            }
            state.devices[device.id] = device
            return device
        }
    }

    public func clearToken(deviceID: Int64, at now: Timestamp) throws {
        state.withLock { state in
            guard state.devices[deviceID] != nil else { return }
            state.devices[deviceID]!.token = nil
            state.devices[deviceID]!.tokenUpdatedAt = now
            state.devices[deviceID]!.updatedAt = now
        }
    }

    public func devices(userID: Int64) throws -> [Device] {
        state.withLock { state in state.devices.values.filter { $0.userID == userID }.sorted { $0.id < $1.id } }
    }

    public func device(id: Int64) throws -> Device? { state.withLock { $0.devices[id] } }

    public func createSession(
        tokenHash: String, businessID: Int64, userID: Int64, deviceID: Int64?, expiresAt: Timestamp, at now: Timestamp
    ) throws -> Session {
        state.withLock { state in
            let session = Session(
                id: state.makeID(), tokenHash: tokenHash, businessID: businessID, userID: userID, deviceID: deviceID,
                createdAt: now, expiresAt: expiresAt)
            state.sessions[session.id] = session
            return session
        }
    }

    public func session(tokenHash: String) throws -> Session? {
        state.withLock { state in state.sessions.values.first { $0.tokenHash == tokenHash } }
    }

    public func sessionWithUser(tokenHash: String) throws -> (session: Session, user: User)? {
        state.withLock { state in
            guard let session = state.sessions.values.first(where: { $0.tokenHash == tokenHash }),
                let user = state.users[session.userID]
            else { return nil }
            return (session, user)
        }
    }

    public func revokeSession(id: Int64, at now: Timestamp) throws {
        state.withLock { state in
            if state.sessions[id]?.revokedAt == nil { state.sessions[id]?.revokedAt = now }
        }
    }

    // MARK: - Inbox

    public func createNotifications(_ drafts: [NotificationDraft], at now: Timestamp) throws -> [InboxEntry] {
        state.withLock { state in drafts.map { Self.insert($0, into: &state, at: now, makeUUID: makeUUID) } }
    }

    static func insert(_ draft: NotificationDraft, into state: inout State, at now: Timestamp, makeUUID: () -> String)
        -> InboxEntry
    {
        let entry = InboxEntry(id: state.makeID(), draft: draft, createdAt: now)
        state.notifications[entry.id] = entry
        state.notificationsByUser[draft.userID, default: []].append(entry.id)
        if draft.visibleInInbox { state.users[draft.userID]?.inboxVersion += 1 }
        guard draft.pushStyle != .none else { return entry }
        let devices = state.devices.values.filter { $0.userID == draft.userID && $0.token != nil }.sorted {
            $0.id < $1.id
        }
        for device in devices {
            let delivery = Delivery(
                id: state.makeID(), notificationID: entry.id, businessID: draft.businessID, deviceID: device.id,
                platform: device.platform, status: .queued, attempts: 0, nextAttemptAt: now, lastReason: nil,
                providerMessageID: nil, apnsID: makeUUID(), createdAt: now, updatedAt: now)
            state.deliveries[delivery.id] = delivery
        }
        return entry
    }

    private static func visible(_ state: State, _ id: Int64) -> InboxEntry? {
        guard !state.deletedNotifications.contains(id), let entry = state.notifications[id], entry.visibleInInbox else {
            return nil
        }
        return entry
    }

    public func notifications(userID: Int64, limit: Int, offset: Int) throws -> [InboxEntry] {
        state.withLock { state in
            let ids = state.notificationsByUser[userID] ?? []
            return ids.reversed().compactMap { Self.visible(state, $0) }.dropFirst(max(0, offset)).prefix(max(0, limit))
                .map { $0 }
        }
    }

    public func notification(userID: Int64, id: Int64) throws -> InboxEntry? {
        state.withLock { state in Self.visible(state, id).flatMap { $0.userID == userID ? $0 : nil } }
    }

    public func notification(businessID: Int64, id: Int64) throws -> InboxEntry? {
        state.withLock { state in state.notifications[id].flatMap { $0.businessID == businessID ? $0 : nil } }
    }

    public func deleteNotification(userID: Int64, id: Int64, at now: Timestamp) throws -> Bool {
        state.withLock { state in
            guard let entry = Self.visible(state, id), entry.userID == userID else { return false }
            state.deletedNotifications.insert(id)
            state.users[userID]?.inboxVersion += 1
            return true
        }
    }

    public func markRead(userID: Int64, ids: [Int64], event: NotificationEventKind?, at now: Timestamp) throws
        -> ReadMarks
    {
        state.withLock { state in
            var seen = Set<Int64>()
            let marked = ids.filter { id in
                guard let entry = Self.visible(state, id), entry.userID == userID else { return false }
                return seen.insert(id).inserted
            }
            var changed = 0
            for id in marked where state.notifications[id]!.readAt == nil {
                state.notifications[id]!.readAt = now
                changed += 1
            }
            if changed > 0 { state.users[userID]?.inboxVersion += 1 }
            if let event {
                for id in marked { state.events.append((id, userID, event, now)) }
            }
            return ReadMarks(ids: marked, changed: changed)
        }
    }

    public func unreadCount(userID: Int64) throws -> Int {
        state.withLock { state in Self.unread(state, userID) }
    }

    static func unread(_ state: State, _ userID: Int64) -> Int {
        (state.notificationsByUser[userID] ?? []).reduce(0) { count, id in
            guard let entry = visible(state, id), entry.readAt == nil else { return count }
            return count + 1
        }
    }

    public func recordEvent(userID: Int64, notificationID: Int64, kind: NotificationEventKind, at now: Timestamp) throws
        -> Bool
    {
        state.withLock { state in
            guard let entry = state.notifications[notificationID], entry.userID == userID else { return false }
            state.events.append((notificationID, userID, kind, now))
            return true
        }
    }

    public func eventCount(notificationID: Int64, kind: NotificationEventKind) throws -> Int {
        state.withLock { state in state.events.filter { $0.notificationID == notificationID && $0.kind == kind }.count }
    }

    // MARK: - Delivery queue

    public func claimDeliveries(owner: String, limit: Int, leaseUntil: Timestamp, at now: Timestamp) throws
        -> [ClaimedDelivery]
    {
        state.withLock { state in
            let due = state.deliveries.values.filter { delivery in
                switch delivery.status {
                case .queued: return delivery.nextAttemptAt <= now
                case .sending: return (state.leases[delivery.id]?.until ?? now) <= now
                default: return false
                }
            }
            .sorted { ($0.nextAttemptAt, $0.id) < ($1.nextAttemptAt, $1.id) }
            .prefix(max(0, limit))
            return due.map { delivery in
                var claimed = delivery
                claimed.status = .sending
                claimed.attempts += 1
                claimed.updatedAt = now
                state.deliveries[delivery.id] = claimed
                state.leases[delivery.id] = (owner, leaseUntil)
                let device = state.devices[delivery.deviceID]
                let entry = state.notifications[delivery.notificationID]!
                return ClaimedDelivery(
                    id: delivery.id, attempts: claimed.attempts, apnsID: delivery.apnsID, platform: delivery.platform,
                    token: device?.token, tokenUpdatedAt: device?.tokenUpdatedAt, deviceID: delivery.deviceID,
                    deviceBelongsToRecipient: device?.userID == entry.userID, notification: entry,
                    badge: Self.unread(state, entry.userID))
            }
        }
    }

    public func completeDeliveries(_ completions: [DeliveryCompletion], at now: Timestamp) throws -> Int {
        state.withLock { state in
            var applied = 0
            for completion in completions {
                guard var delivery = state.deliveries[completion.id], delivery.status == .sending,
                    state.leases[completion.id]?.owner == completion.leaseOwner
                else { continue }
                state.leases[completion.id] = nil
                delivery.updatedAt = now
                delivery.status = completion.outcome.status
                delivery.lastReason = completion.outcome.reason
                switch completion.outcome {
                case .delivered(let messageID):
                    delivery.providerMessageID = messageID
                case .retry(let at, _):
                    delivery.nextAttemptAt = at
                case .wait(let until, _):
                    delivery.nextAttemptAt = until
                    delivery.attempts -= 1
                case .failed, .skipped:
                    break
                case .pruned(_, let unregisteredAt):
                    if var device = state.devices[completion.deviceID], device.token != nil,
                        device.token == completion.token,
                        unregisteredAt == nil || (device.tokenUpdatedAt ?? Timestamp(milliseconds: 0)) < unregisteredAt!
                    {
                        device.token = nil
                        device.tokenUpdatedAt = now
                        device.updatedAt = now
                        state.devices[device.id] = device
                    }
                }
                state.deliveries[delivery.id] = delivery
                applied += 1
            }
            return applied
        }
    }

    public func releaseDeliveries(owner: String, at now: Timestamp) throws -> Int {
        state.withLock { state in
            var released = 0
            for (id, lease) in state.leases where lease.owner == owner {
                state.leases[id] = nil
                state.deliveries[id]?.status = .queued
                state.deliveries[id]?.attempts -= 1
                state.deliveries[id]?.nextAttemptAt = now
                state.deliveries[id]?.updatedAt = now
                released += 1
            }
            return released
        }
    }

    public func deliveries(notificationID: Int64) throws -> [Delivery] {
        state.withLock { state in
            state.deliveries.values.filter { $0.notificationID == notificationID }.sorted { $0.id < $1.id }
        }
    }

    public func queueDepth(at now: Timestamp) throws -> QueueDepth {
        state.withLock { state in
            var depth = QueueDepth(queued: 0, due: 0, sending: 0)
            for delivery in state.deliveries.values {
                if delivery.status == .queued {
                    depth.queued += 1
                    if delivery.nextAttemptAt <= now { depth.due += 1 }
                } else if delivery.status == .sending {
                    depth.sending += 1
                }
            }
            return depth
        }
    }

    public func rescheduleDeliveries(businessID: Int64, platform: PushPlatform, dueAt: Timestamp) throws {
        state.withLock { state in
            for (id, delivery) in state.deliveries
            where delivery.businessID == businessID && delivery.platform == platform && delivery.status == .queued {
                state.deliveries[id]!.nextAttemptAt = dueAt
            }
        }
    }
}
