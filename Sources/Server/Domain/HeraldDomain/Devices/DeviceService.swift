import HeraldModel
import HeraldStore

/// SDK installs (the device API): registration and its credential, the details an install reports, its segments,
/// its deletion, the messages pulled by it, and sandbox test devices. Each operation is one transaction.
///
/// ```swift
/// let installs = DeviceService(store: store, clock: .system)
/// let registered = try installs.register(
///     installID: "6F9619FF-…", details: details, business: business, workspace: .live,
///     credential: IssuedCredential(keyID: keyID, sealedSecret: sealed))
/// registered.isNew          // 201 or 200
/// try installs.pull(registered.device)   // each waiting message once
/// ```
///
/// Who may take over a known device: only one with proof. A registration signed with an install's current
/// credential rotates it. An unsigned one that proves the user the device belongs to (`OwnershipProof`: that user's
/// access token, or an `identity_token` for their external id) adopts it — a device the Punchh API made (its
/// `punchh-app-device-id` is the install id) or the import did, with its user and token (a `push_token` of null does
/// not clear it then), or an SDK install the app lost its credential for: one phone, one device. Without proof,
/// knowing an id gives nothing: the registration starts a new install under an id the server chooses
/// (`RegisteredInstall.device.deviceKey`, which the SDK keeps from then on) and touches nothing of the other
/// record — its user, messages, segments, token and credential stay. So does one whose id has the form of the
/// server's own records' keys (`DeviceRegistration.isServerKey`), known or not. An install of nobody has no user to
/// prove: it becomes a user's only through its own credential (`DeviceIdentityService.identify`); the mobile API
/// never moves it (`DeviceRegistration.mayTakeOver`).
///
/// A push token is one device's (`StoreTransaction.claimPushToken`): an install that belongs to a user takes the
/// token it sends from any other device; an install of nobody takes none from a user's device, and holds none then.
package struct DeviceService: Sendable {
    /// Limits and windows.
    package struct Options: Sendable {
        /// The most approved test devices a business has at once.
        package var testDeviceLimit = 25
        /// An approved test device unused this long is pending again.
        package var testDeviceLapse: Duration = .seconds(30 * 86_400)
        /// The most messages one pull hands out (the rest wait for the next).
        package var pullLimit = 100
        /// How often a device's last sight is written, at most.
        package var seenResolution: Duration = .seconds(60)
        /// How long a signed pull's answer is kept to answer its replays: twice the signature window, as a
        /// timestamp is accepted up to that window ahead of the server's clock and as far behind.
        package var pullReplayWindow: Duration = .seconds(2 * DeviceRequestSignature.allowedSkewSeconds)

        /// The defaults: 25 test devices, 30 days, 100 messages a pull, a minute.
        package init() {}
    }

    let store: Store
    let clock: WallClock
    /// The limits it applies.
    package let options: Options
    let makeApprovalCode: @Sendable () -> String
    let makeInstallID: @Sendable () -> String

    /// The service over `store`; `approvalCode` makes sandbox installs' codes and `installID` the ids of installs the
    /// server names itself (both random by default; tests inject).
    package init(
        store: Store, clock: WallClock, options: Options = Options(),
        approvalCode: @escaping @Sendable () -> String = ApprovalCode.random,
        installID: @escaping @Sendable () -> String = { UUIDString.random() }
    ) {
        self.store = store
        self.clock = clock
        self.options = options
        self.makeApprovalCode = approvalCode
        self.makeInstallID = installID
    }

    // MARK: - Registration

    /// Registers install `installID` of `business` in `workspace` with `credential` (see the type's rules on
    /// taking over). `signedBy` is the device whose current credential signed the request, when it was signed: it
    /// must be this install's (else a conflict on `signature`), and keeps everything but gets the new credential.
    /// `proof`, on an unsigned registration, is what it offers to adopt a known device. `details` must name the push
    /// platform and should carry the rest (a fresh install has only what it says).
    package func register(
        installID: String, details: InstallDetails, business: Business, workspace: Install.Workspace,
        credential: IssuedCredential, signedBy: Int64? = nil, proof: OwnershipProof? = nil
    ) throws -> RegisteredInstall {
        let now = clock.now()
        return try store.transactionClaimingTokens { tx in
            var existing = try tx.devices.lock(businessID: business.id, key: installID)
            var key = installID
            let outcome: RegisteredInstall.Outcome
            if let signedBy {
                guard let current = existing, current.id == signedBy, current.install != nil else {
                    throw DomainError(.conflict, field: "signature", "the request is signed by another install")
                }
                outcome = .rotated
            } else if let current = existing {
                if try proof?.proves(owner: current.userID, businessID: business.id, tx) == true {
                    outcome = current.install == nil ? .adopted : .reclaimed
                } else {
                    // Nobody takes over a device by its id: a new install beside it, under an id of the server's.
                    existing = nil
                    key = try unusedInstallID(businessID: business.id, tx)
                    outcome = .separated
                }
            } else if DeviceRegistration.isServerKey(installID) {
                // Not an id of the app's: the server's own records are made under such keys.
                key = try unusedInstallID(businessID: business.id, tx)
                outcome = .separated
            } else {
                outcome = .created
            }
            var device =
                try existing
                ?? tx.devices.findOrInsert(
                    businessID: business.id, key: key, userID: nil, platform: details.pushPlatform, at: now
                ).device
            var install =
                outcome == .rotated || outcome == .reclaimed
                ? device.install! : Install(workspace: workspace, keyID: credential.keyID, sealedSecret: [])
            install.keyID = credential.keyID
            install.sealedSecret = credential.sealedSecret
            if install.workspace != workspace {
                install.workspace = workspace
                install.testStatus = nil
                install.approvalCode = nil
            }
            lapse(&install, at: now)
            if workspace == .sandbox, install.approvalCode == nil {
                install.approvalCode = try uniqueApprovalCode(businessID: business.id, tx)
                install.testStatus = TestDeviceStanding.pending
            }
            device.install = install
            var details = details
            if outcome == .adopted, case .some(.none) = details.pushToken {
                // The install has no token yet; the one the Punchh API registered for this device stays.
                details.pushToken = nil
            }
            try save(&device, details, tx, at: now)
            return RegisteredInstall(
                device: device, outcome: outcome,
                testDevice: TestDeviceStanding.of(device, at: now, lapse: options.testDeviceLapse))
        }
    }

    /// An install id no device of the business has.
    private func unusedInstallID(businessID: Int64, _ tx: StoreTransaction) throws -> String {
        for _ in 0..<8 {
            let id = makeInstallID()
            if try tx.devices.find(businessID: businessID, key: id) == nil { return id }
        }
        throw DomainError(.conflict, field: "install_id", "no free install id was found; register again")
    }

    /// A code no install of the business shows. Two registrations racing to the same one of 8.5 × 10¹¹ codes
    /// would meet the database's unique index (a conflict on `approval_code`; the SDK registers again).
    private func uniqueApprovalCode(businessID: Int64, _ tx: StoreTransaction) throws -> String {
        for _ in 0..<8 {
            let code = makeApprovalCode()
            if try tx.devices.find(businessID: businessID, approvalCode: code) == nil { return code }
        }
        throw DomainError(.conflict, field: "approval_code", "no free approval code was found; register again")
    }

    /// An approval unused for the lapse is pending again.
    private func lapse(_ install: inout Install, at now: Timestamp) {
        if install.testStatus == TestDeviceStanding.approved,
            (install.lastSeenAt ?? Timestamp(milliseconds: 0)) < now.adding(.zero - options.testDeviceLapse)
        {
            install.testStatus = TestDeviceStanding.pending
        }
    }

    /// Applies `details` to `device`, claims the token it sends (`StoreTransaction.claimPushToken`: an install of
    /// nobody takes none from a user's device), and writes it (and its segments, when given).
    private func save(_ device: inout Device, _ details: InstallDetails, _ tx: StoreTransaction, at now: Timestamp)
        throws
    {
        if device.apply(details, at: now) != nil { try tx.claimPushToken(for: &device, at: now) }
        try tx.devices.save(device)
        if let segments = details.segments { try tx.devices.setSegments(id: device.id, segments) }
    }

    /// Takes what an install reports about itself (`PUT /api/v1/installs/current`); the device as written. Not
    /// found when the install was deleted or replaced meanwhile.
    package func update(_ device: Device, details: InstallDetails) throws -> Device {
        let now = clock.now()
        return try store.transactionClaimingTokens { tx in
            guard var current = try tx.devices.lock(businessID: device.businessID, key: device.deviceKey),
                current.id == device.id, var install = current.install
            else { throw DomainError.notFound("install") }
            lapse(&install, at: now)
            current.install = install
            try save(&current, details, tx, at: now)
            return current
        }
    }

    /// Replaces a device's segments (at most 100, each 1 to 255 characters: the API checks).
    package func setSegments(_ device: Device, _ segments: [String]) throws {
        try store.transaction { tx in
            guard try tx.devices.find(id: device.id) != nil else { throw DomainError.notFound("install") }
            try tx.devices.setSegments(id: device.id, segments)
        }
    }

    /// A device's segments, sorted.
    package func segments(_ device: Device) throws -> [String] {
        try store.read { try $0.devices.segments(id: device.id) }
    }

    /// Deletes an install and everything about it: its token, segments, events, the messages addressed to it and
    /// every delivery to it. Its credential stops working.
    package func delete(_ device: Device) throws {
        try store.transaction { tx in
            guard try tx.devices.find(id: device.id) != nil else { throw DomainError.notFound("install") }
            try tx.devices.delete(id: device.id)
        }
    }

    /// Notes that `device` called now: its last sight (written at most once a `seenResolution`) and, for a test
    /// device whose approval lapsed, its return to pending. Writes nothing when nothing changes.
    package func touch(_ device: Device) throws {
        let now = clock.now()
        guard let install = device.install else { return }
        let lastSeen = install.lastSeenAt ?? Timestamp(milliseconds: 0)
        guard lastSeen < now.adding(.zero - options.seenResolution) else { return }
        let lapseBefore = now.adding(.zero - options.testDeviceLapse)
        try store.transaction { tx in
            if install.testStatus == TestDeviceStanding.approved, lastSeen < lapseBefore {
                try tx.devices.lapseTestDevice(id: device.id, unusedSince: lapseBefore)
            }
            try tx.devices.markSeen(id: device.id, at: now)
        }
    }

    /// The install `device` as stored now (nil once deleted).
    package func reload(_ device: Device) throws -> Device? {
        try store.read { try $0.devices.find(id: device.id) }
    }

    /// The sandbox standing of `device` now.
    package func testDevice(_ device: Device) -> TestDeviceStanding? {
        TestDeviceStanding.of(device, at: clock.now(), lapse: options.testDeviceLapse)
    }

    // MARK: - Messages

    /// Hands `device` the messages waiting for its pull (at most `pullLimit`, oldest first), each once however
    /// many pulls run at once.
    ///
    /// `signature` is the pull's request signature (lowercase hex). A pull signed the same as one answered within
    /// `pullReplayWindow` — a captured pull replayed while its timestamp is still accepted, or two genuine pulls in
    /// one second — is answered the same messages again, never any that arrived since: those wait for the device's
    /// next pull. The answers are kept per install in `idempotency_keys` (under `pull <signature>`: a space no
    /// `Idempotency-Key` holds), so every node sees them, and forgotten once older than the window.
    package func pull(_ device: Device, signature: String? = nil) throws -> [HeraldMessage] {
        let now = clock.now()
        return try store.transaction { tx in
            var messages = DeviceMessages(tx)
            guard let signature else {
                return try tx.inbox.pull(deviceID: device.id, limit: options.pullLimit, at: now).map {
                    try messages.message($0)
                }
            }
            let key = Self.pullKeyPrefix + signature
            try tx.deviceEvents.forget(
                deviceID: device.id, keysStarting: Self.pullKeyPrefix,
                before: now.adding(.zero - options.pullReplayWindow))
            // The key is taken before pulling: a twin running at once waits for this one and answers what it kept.
            guard try tx.deviceEvents.keep(answer: .array([]), requestHash: nil, deviceID: device.id, key: key, at: now)
            else {
                let kept = try tx.deviceEvents.answer(deviceID: device.id, key: key)?.answer.arrayValue ?? []
                return try kept.compactMap { id in
                    guard let id = id.int64Value, let entry = try tx.inbox.find(id: id), device.receives(entry)
                    else { return nil }
                    return try messages.message(entry)
                }
            }
            let entries = try tx.inbox.pull(deviceID: device.id, limit: options.pullLimit, at: now)
            try tx.deviceEvents.replace(
                answer: .array(entries.map { .int($0.id) }), deviceID: device.id, key: key)
            return try entries.map { try messages.message($0) }
        }
    }

    /// What keys the answers kept for signed pulls begin with.
    static let pullKeyPrefix = "pull "

    /// The message `id` if it is one for `device` (`Device.receives`), else nil.
    package func message(_ device: Device, id: Int64) throws -> HeraldMessage? {
        try store.read { tx in
            guard let entry = try tx.inbox.find(id: id), device.receives(entry) else { return nil }
            var messages = DeviceMessages(tx)
            return try messages.message(entry)
        }
    }

    // MARK: - Test devices

    /// Approves the sandbox install of `business` showing `code` as a test device. Approving one already approved
    /// (and in use) changes nothing; a business has at most `testDeviceLimit` approved ones in use (an unused one,
    /// for `testDeviceLapse`, frees its place). The approval counts as a use: its 30 days start now.
    package func approveTestDevice(business: Business, code: String) throws -> (
        device: Device, standing: TestDeviceStanding
    ) {
        let now = clock.now()
        let lapseBefore = now.adding(.zero - options.testDeviceLapse)
        return try store.transaction { tx in
            // Approvals of one business take turns: the cap is counted and kept in one go.
            guard try tx.businesses.lock(id: business.id) != nil else { throw DomainError.notFound("business") }
            guard let device = try tx.devices.find(businessID: business.id, approvalCode: code) else {
                throw DomainError(.invalid, field: "approval_code", "matches no sandbox install of this business")
            }
            if let standing = TestDeviceStanding.of(device, at: now, lapse: options.testDeviceLapse),
                standing.isApproved
            {
                return (device, standing)
            }
            try tx.devices.lapseTestDevice(id: device.id, unusedSince: lapseBefore)
            let approved = try tx.devices.approvedTestDevices(businessID: business.id, seenSince: lapseBefore)
            guard approved < options.testDeviceLimit else {
                throw DomainError(
                    .invalid, field: "approval_code",
                    "this business has \(approved) approved test devices, the most it may have; one unused for "
                        + "\(options.testDeviceLapse.components.seconds / 86_400) days frees its place")
            }
            try tx.devices.approveTestDevice(id: device.id, at: now)
            guard let approvedDevice = try tx.devices.find(id: device.id),
                let standing = TestDeviceStanding.of(approvedDevice, at: now, lapse: options.testDeviceLapse)
            else { throw DomainError.notFound("install") }
            return (approvedDevice, standing)
        }
    }
}

/// What a registration did.
package struct RegisteredInstall: Sendable, Equatable {
    /// How the install came to be.
    package struct Outcome: Sendable, Hashable, CustomStringConvertible {
        /// Its name.
        package let rawValue: String
        /// The outcome named `rawValue`.
        package init(_ rawValue: String) { self.rawValue = rawValue }
        /// A new device.
        package static let created = Outcome("created")
        /// A device the Punchh API or the import knew (same device key), now an install too; its user kept. Only
        /// with proof of that user.
        package static let adopted = Outcome("adopted")
        /// An install registered again without its credential but with proof of its user: the same install (its
        /// messages, segments and token kept), a new credential.
        package static let reclaimed = Outcome("reclaimed")
        /// An unsigned registration of a known id without proof, or of an id of the server's own form: a new
        /// install under an id the server chose; the known device untouched.
        package static let separated = Outcome("separated")
        /// A registration signed with the install's current credential: the same install, a new credential.
        package static let rotated = Outcome("rotated")
        package var description: String { rawValue }
    }

    /// The device as written.
    package var device: Device
    /// How it came to be.
    package var outcome: Outcome
    /// Its sandbox standing, for a sandbox install.
    package var testDevice: TestDeviceStanding?

    /// True unless an existing install was given a new credential (201 rather than 200).
    package var isNew: Bool { outcome != .rotated && outcome != .reclaimed }
}
