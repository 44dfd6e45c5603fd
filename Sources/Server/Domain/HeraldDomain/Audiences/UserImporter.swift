import HeraldModel
import HeraldStore

/// Bulk import of a business's users, their attributes and devices, a batch at a time: each user is matched by
/// external id, else by email, and created or brought up to date; its devices are attached by key. Importing the
/// same users again finds them all and writes nothing.
///
/// ```swift
/// let importer = UserImporter(store: store, clock: clock)
/// let result = try importer.importBatch(users, businessID: business.id)   // a thousand at a time
/// ```
///
/// Rules:
/// - A user with an `external_id` is the one with that id; without one yet, the one with the line's email (a user
///   whose email matches but who has another external id is not them: the line is refused).
/// - Names are set when given; attributes are merged into the user's (a null removes one), at most
///   `maximumAttributes` in all; an email may be changed to one no other user has.
/// - A device is the one with its key (an SDK install's `install_id`, a Punchh app's device id), or, for a device
///   imported without one, the device already holding its token (else a new one with a key derived from the
///   token). It moves to the user, with the token; another device holding the token loses it.
package struct UserImporter: Sendable {
    let store: Store
    let clock: WallClock

    /// The most attributes a user may have.
    package static let maximumAttributes = 100

    /// An importer over `store`.
    package init(store: Store, clock: WallClock) {
        self.store = store
        self.clock = clock
    }

    /// Imports `users` of `businessID` in one transaction. Should another writer take a unique value in between
    /// (an email, a token), the batch is imported again a user at a time, so that only the users it concerns are
    /// refused.
    package func importBatch(_ users: [ImportedUser], businessID: Int64) throws -> UserImportResult {
        guard !users.isEmpty else { return UserImportResult() }
        let now = clock.now()
        var attempts = 0
        while true {
            do {
                return try store.transaction { tx in
                    var batch = try ImportBatch(tx: tx, businessID: businessID, users: users, at: now)
                    return try batch.run(users)
                }
            } catch let error as StoreError where error.code == .retryable && attempts < 3 {
                attempts += 1
            } catch let error as StoreError where error.code == .conflict || error.code == .retryable {
                return try importOneByOne(users, businessID: businessID, at: now)
            }
        }
    }

    private func importOneByOne(_ users: [ImportedUser], businessID: Int64, at now: Timestamp) throws
        -> UserImportResult
    {
        var result = UserImportResult()
        for user in users {
            do {
                let one = try store.transaction { tx in
                    var batch = try ImportBatch(tx: tx, businessID: businessID, users: [user], at: now)
                    return try batch.run([user])
                }
                result.created += one.created
                result.updated += one.updated
                result.rejected += one.rejected
            } catch let error as StoreError where error.code == .conflict || error.code == .retryable {
                let field = error.field.map { $0 == "token" ? "devices" : $0 } ?? "base"
                result.rejected.append(
                    .init(
                        line: user.line,
                        errors: [.init(field, [error.code == .conflict ? "has already been taken" : "retry later"])]))
            }
        }
        return result
    }
}

/// One batch's users and devices, read once up front and kept current as the batch decides. Updates of what the
/// store already holds are written as each line makes them (few: a re-import changes little); what the batch creates
/// is written at its end, many rows a statement — its users, then the devices moved to them, then its new devices —
/// with the state the whole batch left them in (a statement per created row was a round trip each on PostgreSQL).
private struct ImportBatch {
    let tx: StoreTransaction
    let businessID: Int64
    let now: Timestamp
    var users: [Int64: User] = [:]
    var userByExternalID: [String: Int64] = [:]
    var userByEmail: [String: Int64] = [:]
    var devices: [String: Device] = [:]
    /// The key of the device holding each token (`platform \n token`).
    var holders: [String: String] = [:]
    /// The users the batch creates, by the provisional (negative) ids it knows them by until they are written.
    var createdUsers: [Int64] = []
    /// The keys of the devices the batch creates, and of devices the store holds that it changed, in order.
    var createdDevices: [String] = []
    var changedDevices: [String] = []
    var changedDeviceKeys = Set<String>()

    init(tx: StoreTransaction, businessID: Int64, users lines: [ImportedUser], at now: Timestamp) throws {
        self.tx = tx
        self.businessID = businessID
        self.now = now
        let externalIDs = Set(lines.compactMap(\.externalID))
        let emails = Set(lines.compactMap(\.email))
        for user in try tx.users.find(businessID: businessID, externalIDs: Array(externalIDs))
            + tx.users.find(businessID: businessID, emails: Array(emails))
        {
            remember(user)
        }
        let imported = lines.flatMap(\.devices)
        for device in try tx.devices.find(businessID: businessID, keys: Array(Set(imported.map(\.key)))) {
            remember(device)
        }
        for platform in Set(imported.map(\.platform)) {
            let tokens = Set(imported.filter { $0.platform == platform }.map(\.token))
            for device in try tx.devices.find(businessID: businessID, platform: platform, tokens: Array(tokens)) {
                remember(device)
            }
        }
    }

    private mutating func remember(_ user: User) {
        if let old = users[user.id], let email = old.email, userByEmail[email] == user.id {
            userByEmail[email] = nil
        }
        users[user.id] = user
        if let externalID = user.externalID { userByExternalID[externalID] = user.id }
        if let email = user.email { userByEmail[email] = user.id }
    }

    private mutating func remember(_ device: Device) {
        if let old = devices[device.deviceKey], let token = old.token,
            holders[Self.tokenKey(old.platform, token)] == device.deviceKey
        {
            holders[Self.tokenKey(old.platform, token)] = nil
        }
        devices[device.deviceKey] = device
        if let token = device.token { holders[Self.tokenKey(device.platform, token)] = device.deviceKey }
    }

    /// Remembers a device the store holds as changed: written with the batch's users.
    private mutating func changed(_ device: Device) {
        remember(device)
        if changedDeviceKeys.insert(device.deviceKey).inserted { changedDevices.append(device.deviceKey) }
    }

    private static func tokenKey(_ platform: PushPlatform, _ token: String) -> String {
        platform.rawValue + "\n" + token
    }

    mutating func run(_ lines: [ImportedUser]) throws -> UserImportResult {
        var result = UserImportResult()
        for line in lines {
            switch try importUser(line) {
            case .created: result.created += 1
            case .updated: result.updated += 1
            case .rejected(let errors): result.rejected.append(.init(line: line.line, errors: errors))
            }
        }
        try writeCreated()
        return result
    }

    /// Writes the users and devices the batch created, and the devices it changed (which may now belong to a user
    /// it created): with the ids the store gives the new users.
    private mutating func writeCreated() throws {
        var ids: [Int64: Int64] = [:]
        let created = try tx.users.insertImported(createdUsers.compactMap { users[$0] })
        for (provisional, user) in zip(createdUsers, created) { ids[provisional] = user.id }
        func written(_ device: Device) -> Device {
            var device = device
            if let user = device.userID, user < 0 { device.userID = ids[user] }
            return device
        }
        for key in changedDevices {
            if let device = devices[key] { try tx.devices.save(written(device)) }
        }
        _ = try tx.devices.insertImported(createdDevices.compactMap { devices[$0] }.map(written))
    }

    private enum Outcome {
        case created, updated
        case rejected([UserImportResult.Rejection.Field])
    }

    private mutating func importUser(_ line: ImportedUser) throws -> Outcome {
        var existing = line.externalID.flatMap { userByExternalID[$0] }.flatMap { users[$0] }
        if existing == nil, let email = line.email, let id = userByEmail[email], let candidate = users[id] {
            if let externalID = line.externalID, let theirs = candidate.externalID, theirs != externalID {
                return .rejected([.init("email", ["belongs to a user with another external_id"])])
            }
            existing = candidate
        }
        var attributes = existing?.attributes.objectValue ?? []
        for (key, value) in line.attributes {
            attributes.removeAll { $0.key == key }
            if !value.isNull { attributes.append((key, value)) }
        }
        guard attributes.count <= UserImporter.maximumAttributes else {
            return .rejected([.init("attributes", ["a user has at most \(UserImporter.maximumAttributes) attributes"])])
        }
        let user: User
        let outcome: Outcome
        if let existing {
            var changed = existing
            if let externalID = line.externalID { changed.externalID = externalID }
            if let email = line.email, email != existing.email {
                if let other = userByEmail[email], other != existing.id {
                    return .rejected([.init("email", ["has already been taken"])])
                }
                changed.email = email
            }
            if let firstName = line.firstName { changed.firstName = firstName }
            if let lastName = line.lastName { changed.lastName = lastName }
            changed.attributes = .object(attributes)
            if changed != existing {
                changed.updatedAt = now
                // A user created earlier in the batch is written at its end, as it stands then.
                if changed.id > 0 { try tx.users.saveImported(changed) }
                remember(changed)
            }
            user = changed
            outcome = .updated
        } else {
            if let email = line.email, userByEmail[email] != nil {
                return .rejected([.init("email", ["has already been taken"])])
            }
            user = User(
                id: -Int64(createdUsers.count + 1), businessID: businessID, email: line.email, passwordHash: "",
                firstName: line.firstName ?? "", lastName: line.lastName ?? "", externalID: line.externalID,
                attributes: .object(attributes), createdAt: now, updatedAt: now)
            createdUsers.append(user.id)
            remember(user)
            outcome = .created
        }
        for device in line.devices { try attach(device, to: user.id) }
        return outcome
    }

    /// Makes `imported` a device of `userID` holding its token, taking the token from any other device.
    private mutating func attach(_ imported: ImportedDevice, to userID: Int64) throws {
        let tokenKey = Self.tokenKey(imported.platform, imported.token)
        let holder = holders[tokenKey]
        let key = imported.keyGiven ? imported.key : holder ?? imported.key
        if let holder, holder != key, var other = devices[holder] {
            // Another device has the token: it was given away or the app reinstalled. Only one may hold it.
            try tx.devices.releaseToken(
                imported.token, platform: imported.platform, businessID: businessID, except: devices[key]?.id ?? -1,
                at: now)
            other.token = nil
            other.updatedAt = now
            remember(other)
        }
        guard var device = devices[key] else {
            createdDevices.append(key)
            remember(
                Device(
                    id: 0, businessID: businessID, userID: userID, deviceKey: key, platform: imported.platform,
                    token: imported.token, tokenUpdatedAt: now, userAgent: nil, createdAt: now, updatedAt: now))
            return
        }
        if device.userID == userID && device.platform == imported.platform && device.token == imported.token {
            return
        }
        if device.token != imported.token || device.platform != imported.platform {
            device.token = imported.token
            device.platform = imported.platform
            device.tokenUpdatedAt = now
        }
        device.userID = userID
        device.updatedAt = now
        // A device created earlier in the batch is written at its end, as it stands then.
        if device.id > 0 { changed(device) } else { remember(device) }
    }
}
