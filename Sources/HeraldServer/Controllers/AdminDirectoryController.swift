import HeraldDomain
import HeraldHTTP
import HeraldModel
import HeraldStore

/// What the admin console lists and looks up: the businesses (no secret among them) and a business's devices by
/// owner, email, install id or the start of their push token, each with its latest deliveries and the provider's
/// answers.
struct AdminDirectoryController: Sendable {
    let store: Store
    let admin: AdminController

    /// How many of a device's deliveries a lookup shows, newest first.
    static let deliveriesPerDevice = 10
    /// How much of a push token a lookup shows.
    static let tokenPrefixLength = 8

    func register(in router: inout Router) {
        router.get("/api/admin/businesses", admin.guarded(listBusinesses))
        router.get("/api/admin/businesses/{id}/devices", admin.guarded(lookUpDevices))
    }

    // MARK: - Businesses

    @Sendable func listBusinesses(_ request: HTTPRequest) throws -> HTTPResponse {
        let page = try Page(request)
        let found = try store.read { tx -> [(Business, PushCredential?, PushCredential?)] in
            try tx.businesses.all(limit: page.limit, offset: page.offset).map { business in
                (
                    business, try tx.credentials.find(businessID: business.id, platform: .apns),
                    try tx.credentials.find(businessID: business.id, platform: .fcm)
                )
            }
        }
        return .list(found) { business, apns, fcm in
            .object([
                ("id", .int(business.id)), ("name", .string(business.name)), ("client", .string(business.clientID)),
                ("apns", Self.json(apns)), ("fcm", Self.json(fcm)), ("created_at", .string(business.createdAt.iso8601)),
            ])
        }
    }

    /// A credential's settings and status (its key never), or null.
    static func json(_ credential: PushCredential?) -> JSON {
        guard let credential else { return .null }
        var pairs: [(key: String, value: JSON)] = credential.settings.keys.sorted().map {
            ($0, .string(credential.settings[$0]!))
        }
        pairs.append(("status", .string(credential.brokenReason == nil ? "ok" : "broken")))
        pairs.append(("broken_reason", JSON(credential.brokenReason)))
        pairs.append(("updated_at", .string(credential.updatedAt.iso8601)))
        return .object(pairs)
    }

    // MARK: - Devices

    @Sendable func lookUpDevices(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let page = try Page(request)
        let lookup = try Self.lookup(request)
        let found = try store.read { tx -> [(device: Device, email: String?, deliveries: [Delivery])] in
            try tx.devices.lookup(businessID: business.id, lookup, limit: page.limit, offset: page.offset).map {
                ($0.device, $0.email, try tx.deliveries.recent(deviceID: $0.device.id, limit: Self.deliveriesPerDevice))
            }
        }
        return .list(found) { found, writer in
            Self.write(found.device, email: found.email, deliveries: found.deliveries, to: &writer)
        }
    }

    /// The query's conditions, checked.
    static func lookup(_ request: HTTPRequest) throws -> DeviceLookup {
        var errors = FieldErrors()
        var lookup = DeviceLookup()
        if let text = request.queryValue("user_id") {
            lookup.userID = PathID.parse(text)
            if lookup.userID == nil { errors.add("user_id", "must be a user id (a whole number)") }
        }
        if let text = request.queryValue("email") {
            let email = AccountInput.normalizedEmail(text)
            if email.isEmpty || email.utf8.count > 320 {
                errors.add("email", "must be an email of at most 320 characters")
            } else {
                lookup.email = email
            }
        }
        if let text = request.queryValue("install_id") {
            if text.isEmpty || text.utf8.count > 255 {
                errors.add("install_id", "must be 1 to 255 characters")
            } else {
                lookup.installID = text
            }
        }
        if let text = request.queryValue("token_prefix") {
            // The characters of APNs (hex) and FCM tokens; a short prefix would match too much to be of use.
            let allowed = text.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x3A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                    || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
            }
            if !allowed || text.utf8.count < 4 || text.utf8.count > 256 {
                errors.add("token_prefix", "must be 4 to 256 characters of a push token (letters, digits, _ - : .)")
            } else {
                lookup.tokenPrefix = text
            }
        }
        try errors.check()
        return lookup
    }

    /// A device as the lookup shows it: its token only as a prefix, its install's details, its latest deliveries.
    static func write(_ device: Device, email: String?, deliveries: [Delivery], to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("id", device.id)
        writer.field("install_id", device.deviceKey)
        writer.field("user_id", device.userID)
        writer.field("email", email)
        writer.field("platform", device.platform.rawValue)
        writer.field("token_prefix", device.token.map { String($0.prefix(tokenPrefixLength)) })
        writer.field("token_updated_at", device.tokenUpdatedAt)
        let install = device.install
        writer.field("workspace", install?.workspace.rawValue)
        writer.field("apns_environment", install?.apnsEnvironment)
        writer.field("app_version", install?.appVersion)
        writer.field("os_version", install?.osVersion)
        writer.field("device_model", install?.deviceModel)
        writer.field("sdk_version", install?.sdkVersion)
        writer.field("notifications_enabled", install?.notificationsEnabled.map { JSON.bool($0) } ?? .null)
        writer.field("test_status", install?.testStatus)
        writer.field("last_seen_at", install?.lastSeenAt)
        writer.field("created_at", device.createdAt)
        writer.key("deliveries")
        writer.beginArray()
        for delivery in deliveries { Presenter.write(delivery, to: &writer) }
        writer.endArray()
        writer.endObject()
    }
}
