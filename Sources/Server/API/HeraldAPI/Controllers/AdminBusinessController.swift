import HeraldCrypto
import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// The admin API's businesses (docs/openapi.json): creating one (its keys shown once), its push credentials, its
/// device-API keys, locations and loyalty settings. Secrets go in; none ever comes out.
struct AdminBusinessController: Sendable {
    let admin: AdminAccess
    let businesses: BusinessService
    /// Tells the delivery engine a business's credential changed.
    let credentialChanged: @Sendable (Int64, PushPlatform) -> Void

    func register(in router: inout Router) {
        router.post("/api/admin/businesses", admin.guarded(createBusiness))
        router.get("/api/admin/businesses", admin.guarded(listBusinesses))
        router.get("/api/admin/businesses/{id}", admin.guarded(showBusiness))
        router.put("/api/admin/businesses/{id}/apns", admin.guarded(setAPNs))
        router.put("/api/admin/businesses/{id}/fcm", admin.guarded(setFCM))
        router.put("/api/admin/businesses/{id}/fcm/quota", admin.guarded(setFCMQuota))
        router.post("/api/admin/businesses/{id}/api_keys", admin.guarded(issueAPIKeys))
        router.post("/api/admin/businesses/{id}/locations", admin.guarded(createLocation))
        router.get("/api/admin/businesses/{id}/settings", admin.guarded(showSettings))
        router.put("/api/admin/businesses/{id}/settings", admin.guarded(updateSettings))
    }

    /// New device-API keys: the live key (`api_key`) of the app's installs and the sandbox key
    /// (`sandbox_api_key`) of test builds, to show once; their hashes go to the store.
    static func newAPIKeys() -> (live: String, sandbox: String) {
        (AccessTokens.generate(prefix: "hlive_"), AccessTokens.generate(prefix: "hsbx_"))
    }

    // MARK: - Businesses

    @Sendable func createBusiness(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try admin.object(request)
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: ["name"], prefix: "")
        let name = AdminInput.requiredString(body, "name", max: 200, &errors)
        try errors.check()
        let secret = AccessTokens.generate(prefix: "")
        let posKey = AccessTokens.generate(prefix: "hpos_")
        let clientID = Hex.encode(SecureRandom.bytes(count: 16))
        let apiKeys = Self.newAPIKeys()
        let business = try businesses.create(
            BusinessService.NewBusiness(
                name: name!, clientID: clientID,
                secret: secret,
                posKeyHash: AccessTokens.hash(posKey),
                apiKeyHashes: (AccessTokens.hash(apiKeys.live), AccessTokens.hash(apiKeys.sandbox))))
        return .json(
            .object([
                ("id", .int(business.id)), ("name", .string(business.name)), ("client", .string(clientID)),
                ("secret", .string(secret)), ("pos_key", .string(posKey)), ("api_key", .string(apiKeys.live)),
                ("sandbox_api_key", .string(apiKeys.sandbox)),
            ]), status: .created)
    }

    @Sendable func listBusinesses(_ request: HTTPRequest) throws -> HTTPResponse {
        let page = try Page(request)
        return .list(try businesses.list(limit: page.limit, offset: page.offset)) { business, credentials in
            .object([
                ("id", .int(business.id)), ("name", .string(business.name)), ("client", .string(business.clientID)),
                ("apns", Presenter.json(credentials.apns)), ("fcm", Presenter.json(credentials.fcm)),
                ("created_at", .string(business.createdAt.iso8601)),
            ])
        }
    }

    @Sendable func showBusiness(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let credentials = try businesses.credentials(businessID: business.id)
        return .json(
            .object([
                ("id", .int(business.id)), ("name", .string(business.name)), ("client", .string(business.clientID)),
                ("beacon_major", .int(business.id)), ("settings", business.settings.json),
                ("apns", Presenter.json(credentials.apns)),
                ("fcm", Presenter.json(credentials.fcm)), ("created_at", .string(business.createdAt.iso8601)),
            ]))
    }

    // MARK: - Credentials and keys

    @Sendable func setAPNs(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let key = try CredentialInput.apns(try admin.object(request))
        try businesses.setCredential(
            businessID: business.id, platform: .apns, settings: key.settings, key: Array(key.keyText.utf8))
        credentialChanged(business.id, .apns)
        return .json(
            .object([
                ("key_id", .string(key.keyID)), ("team_id", .string(key.teamID)), ("topic", .string(key.topic)),
                ("environment", .string(key.environment)), ("status", "ok"),
            ]))
    }

    @Sendable func setFCM(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let account = try CredentialInput.fcm(try admin.object(request))
        try businesses.setCredential(
            businessID: business.id, platform: .fcm, settings: account.settings, key: account.account.encoded)
        credentialChanged(business.id, .fcm)
        return .json(
            .object([
                ("project_id", .string(account.projectID)), ("client_email", .string(account.clientEmail)),
                ("status", "ok"),
            ]))
    }

    /// `{"quota_per_minute": n}` (null: back to `--fcm-quota-per-minute`): the send quota of the business's Firebase
    /// project, for every business and node sending as that project.
    @Sendable func setFCMQuota(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let perMinute = try CredentialInput.fcmQuota(try admin.object(request))
        let quota = try businesses.setFCMQuota(businessID: business.id, perMinute: perMinute)
        return .json(
            .object([
                ("project_id", .string(quota.projectID)),
                ("quota_per_minute", quota.perMinute.map { .int(Int64($0)) } ?? .null),
            ]))
    }

    /// `{"keys":["live","sandbox"]}` (both when left out): replaces those keys. Installs already registered keep
    /// their own credentials; new registrations need the new key.
    @Sendable func issueAPIKeys(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let body = try request.jsonObjectBody()
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: ["keys"])
        var which: Set<String> = ["live", "sandbox"]
        if let value = body["keys"], !value.isNull {
            let names = value.arrayValue?.compactMap(\.stringValue) ?? []
            if names.isEmpty || names.count != value.arrayValue?.count
                || !names.allSatisfy({ $0 == "live" || $0 == "sandbox" })
            {
                errors.add("keys", "must be a non-empty list of \"live\" and \"sandbox\"")
            } else {
                which = Set(names)
            }
        }
        try errors.check()
        let keys = Self.newAPIKeys()
        let live = which.contains("live") ? keys.live : nil
        let sandbox = which.contains("sandbox") ? keys.sandbox : nil
        try businesses.replaceAPIKeys(
            businessID: business.id, liveHash: live.map(AccessTokens.hash), sandboxHash: sandbox.map(AccessTokens.hash))
        var answer: [(key: String, value: JSON)] = [("id", .int(business.id))]
        if let live { answer.append(("api_key", .string(live))) }
        if let sandbox { answer.append(("sandbox_api_key", .string(sandbox))) }
        return .json(.object(answer))
    }

    // MARK: - Locations and settings

    @Sendable func createLocation(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let body = try admin.object(request)
        var errors = FieldErrors()
        let name = AdminInput.requiredString(body, "name", max: 200, &errors)
        var storeNumber: String?
        if let value = body["store_number"], !value.isNull {
            storeNumber = value.stringValue ?? value.int64Value.map { String($0) }
            if storeNumber == nil || storeNumber!.count > 50 {
                errors.add("store_number", "must be a string of at most 50 characters")
            }
        }
        // The beacons there, as Punchh apps name them (`beacon_major` is the business's id).
        var minors: [Int64] = []
        if let value = body["beacon_minors"], !value.isNull {
            let items = value.arrayValue ?? []
            minors = items.compactMap { $0.int64Value.flatMap { (0...65_535).contains($0) ? $0 : nil } }
            if value.arrayValue == nil || items.count > 100 || minors.count != items.count
                || Set(minors).count != minors.count
            {
                errors.add("beacon_minors", "must be a list of at most 100 different beacon minors (0 to 65535)")
            }
        }
        errors.refuseUnknown(body, known: ["name", "store_number", "beacon_minors"], prefix: "")
        try errors.check()
        let location = try businesses.addLocation(
            businessID: business.id, name: name!, storeNumber: storeNumber, beaconMinors: minors)
        return .json(
            .object([
                ("id", .int(location.id)), ("name", .string(location.name)),
                ("store_number", JSON(location.storeNumber)), ("beacon_minors", .array(minors.map { .int($0) })),
            ]), status: .created)
    }

    @Sendable func showSettings(_ request: HTTPRequest) throws -> HTTPResponse {
        .json(try admin.business(request).settings.json)
    }

    /// The business rules; fields left out keep their values. Every problem — with a field, or with what the
    /// settings name (`BusinessService.problems`) — is answered at once.
    @Sendable func updateSettings(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        var errors = FieldErrors()
        let settings = SettingsInput.settings(try admin.object(request), over: business.settings, &errors)
        for problem in try businesses.problems(settings, business: business) {
            errors.add(problem.field, problem.message)
        }
        try errors.check()
        try businesses.updateSettings(business: business, settings)
        return .json(settings.json)
    }
}
