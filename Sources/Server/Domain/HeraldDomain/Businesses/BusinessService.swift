import HeraldModel
import HeraldStore

/// A business and what its operator sets up: its keys, push credentials, locations and loyalty settings.
/// Secrets arrive hashed (the API hashes keys it shows once) or in clear and are sealed here with `sealer`, for
/// their named purpose (`SealPurpose`); none is ever read back out in clear.
package struct BusinessService: Sendable {
    let store: Store
    let sealer: SecretSealer
    let clock: WallClock

    /// The service over `store`, sealing with `sealer`.
    package init(store: Store, sealer: SecretSealer, clock: WallClock) {
        self.store = store
        self.sealer = sealer
        self.clock = clock
    }

    /// What a new business is made with: its public client id, its signing secret and its keys' hashes.
    package struct NewBusiness: Sendable {
        /// Display name.
        package var name: String
        /// The public client id the app sends as `"client"`.
        package var clientID: String
        /// The signing secret (sealed before it is stored).
        package var secret: String
        /// The POS key's hash.
        package var posKeyHash: String
        /// The live and sandbox device-API keys' hashes.
        package var apiKeyHashes: (live: String, sandbox: String)

        /// A business to create.
        package init(
            name: String, clientID: String, secret: String, posKeyHash: String,
            apiKeyHashes: (live: String, sandbox: String)
        ) {
            self.name = name
            self.clientID = clientID
            self.secret = secret
            self.posKeyHash = posKeyHash
            self.apiKeyHashes = apiKeyHashes
        }
    }

    /// Creates a business with default settings and its device-API keys.
    package func create(_ new: NewBusiness) throws -> Business {
        let now = clock.now()
        let sealedSecret = try sealer.seal(Array(new.secret.utf8), purpose: .businessSecret)
        return try store.transaction { tx in
            let business = try tx.businesses.insert(
                name: new.name, clientID: new.clientID, sealedSecret: sealedSecret, posKeyHash: new.posKeyHash,
                at: now)
            try tx.businesses.setAPIKeys(
                id: business.id, liveHash: new.apiKeyHashes.live, sandboxHash: new.apiKeyHashes.sandbox)
            return business
        }
    }

    /// The business `id`, or nil.
    package func find(id: Int64) throws -> Business? {
        try store.read { try $0.businesses.find(id: id) }
    }

    /// A business's APNs and FCM credentials (each nil when not set).
    package struct Credentials: Sendable {
        /// Apple's.
        package var apns: PushCredential?
        /// Google's.
        package var fcm: PushCredential?
    }

    /// The credentials of `businessID`.
    package func credentials(businessID: Int64) throws -> Credentials {
        try store.read { try credentials(businessID, in: $0) }
    }

    /// A page of the businesses by id, each with its credentials.
    package func list(limit: Int, offset: Int) throws -> [(business: Business, credentials: Credentials)] {
        try store.read { tx in
            try tx.businesses.all(limit: limit, offset: offset).map { ($0, try credentials($0.id, in: tx)) }
        }
    }

    private func credentials(_ businessID: Int64, in tx: StoreTransaction) throws -> Credentials {
        Credentials(
            apns: try tx.credentials.find(businessID: businessID, platform: .apns),
            fcm: try tx.credentials.find(businessID: businessID, platform: .fcm))
    }

    /// Sets (replaces) a business's credential for `platform`, healthy: a replaced key is given its chance. `key` (a
    /// .p8 key's text, a service account's JSON) is sealed for the platform's purpose; `settings` are kept as given.
    package func setCredential(
        businessID: Int64, platform: PushPlatform, settings: [String: String], key: [UInt8]
    ) throws {
        let purpose: SealPurpose
        switch platform {
        case .apns: purpose = .apnsKey
        case .fcm: purpose = .fcmAccount
        default: throw DomainError(.invalid, field: "platform", "is neither apns nor fcm")
        }
        let sealedKey = try sealer.seal(key, purpose: purpose)
        let credential = PushCredential(
            businessID: businessID, platform: platform, settings: settings, sealedKey: sealedKey,
            updatedAt: clock.now())
        try store.transaction { try $0.credentials.save(credential) }
    }

    /// The send quota of a business's Firebase project as the operator set it.
    package struct FCMQuota: Sendable, Equatable {
        /// The project (its service account's `project_id`): every business sending as it shares the quota.
        package var projectID: String
        /// Sends a minute; nil: the nodes' `--fcm-quota-per-minute`.
        package var perMinute: Int?
    }

    /// Sets (nil: clears) the per-minute send quota of `businessID`'s Firebase project, for every business sending
    /// as that project: Google grants a project more than its default on request. A business without an FCM
    /// credential has no project yet (invalid on `service_account`).
    package func setFCMQuota(businessID: Int64, perMinute: Int?) throws -> FCMQuota {
        try store.transaction { tx in
            guard let projectID = try tx.credentials.fcmProjectID(businessID: businessID) else {
                throw DomainError(
                    .invalid, field: "service_account", "is not set: the quota is its Firebase project's (PUT …/fcm)")
            }
            try tx.fcmQuotas.setQuotaPerMinute(perMinute, projectID: projectID)
            return FCMQuota(projectID: projectID, perMinute: perMinute)
        }
    }

    /// Replaces the device-API keys given (by hash); the other is kept. Installs already registered keep their own
    /// credentials.
    package func replaceAPIKeys(businessID: Int64, liveHash: String?, sandboxHash: String?) throws {
        try store.transaction {
            _ = try $0.businesses.setAPIKeys(id: businessID, liveHash: liveHash, sandboxHash: sandboxHash)
        }
    }

    /// Adds a location (a store the POS reports from), with the minors of the beacons placed there (each one
    /// beacon of the business: a conflict on `beacon_minors` when another location has it).
    package func addLocation(businessID: Int64, name: String, storeNumber: String?, beaconMinors: [Int64] = [])
        throws -> Location
    {
        let now = clock.now()
        return try store.transaction { tx in
            let location = try tx.locations.insert(
                businessID: businessID, name: name, storeNumber: storeNumber, at: now)
            for minor in beaconMinors {
                try tx.locations.addBeacon(businessID: businessID, minor: minor, locationID: location.id)
            }
            return location
        }
    }

    /// What the business's rules find wrong with `settings`: an offer it names that is not this business's, and
    /// points converting into a reward without an offer to grant.
    package func problems(_ settings: BusinessSettings, business: Business) throws -> [Problem] {
        try store.read { tx in
            var problems: [Problem] = []
            for (field, id) in [
                ("conversion_offer_id", settings.conversionOfferID), ("welcome_offer_id", settings.welcomeOfferID),
            ] {
                guard let id, try tx.offers.find(businessID: business.id, id: id) == nil else { continue }
                problems.append(Problem(field, "must be the id of one of this business's offers"))
            }
            if settings.conversionThreshold > 0, settings.conversionKind == "reward", settings.conversionOfferID == nil
            {
                problems.append(Problem("conversion_offer_id", "is required when points convert into a reward"))
            }
            return problems
        }
    }

    /// Saves the business's settings, refusing them (on the first problem) when `problems` finds any.
    package func updateSettings(business: Business, _ settings: BusinessSettings) throws {
        if let problem = try problems(settings, business: business).first {
            throw DomainError(.invalid, field: problem.field, problem.message)
        }
        try store.transaction { _ = try $0.businesses.updateSettings(id: business.id, settings) }
    }
}
