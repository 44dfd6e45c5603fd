import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// What the admin console looks up: a business's users (by email), and its devices by owner, email, install id or
/// the start of their push token, each with its latest deliveries and the provider's answers; and the approval of
/// sandbox test devices.
struct AdminDirectoryController: Sendable {
    let admin: AdminAccess
    let directory: DirectoryService
    let devices: DeviceService

    /// How many of a device's deliveries a lookup shows, newest first.
    static let deliveriesPerDevice = 10
    /// How much of a push token a lookup shows.
    static let tokenPrefixLength = 8

    func register(in router: inout Router) {
        router.get("/api/admin/businesses/{id}/users", admin.guarded(listUsers))
        router.get("/api/admin/businesses/{id}/devices", admin.guarded(lookUpDevices))
        router.post("/api/admin/businesses/{id}/test-devices", admin.guarded(approveTestDevice))
    }

    // MARK: - Users

    /// `GET …/users?email=&limit=&offset=`: the business's users by id, or the one with that email.
    @Sendable func listUsers(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let page = try Page(request)
        let email = request.queryValue("email").map { $0.lowercased() }
        let users = try directory.users(businessID: business.id, email: email, limit: page.limit, offset: page.offset)
        return .list(users) { user, writer in
            writer.beginObject()
            writer.field("id", user.id)
            writer.field("email", user.email)
            writer.field("first_name", user.firstName)
            writer.field("last_name", user.lastName)
            writer.field("phone", user.phone)
            writer.field("external_id", user.externalID)
            writer.field("points", user.points)
            writer.field("created_at", user.createdAt)
            writer.endObject()
        }
    }

    // MARK: - Devices

    @Sendable func lookUpDevices(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let page = try Page(request)
        let found = try directory.devices(
            businessID: business.id, try Self.lookup(request), deliveries: Self.deliveriesPerDevice, limit: page.limit,
            offset: page.offset)
        return .list(found) { found, writer in
            Self.write(found.device, email: found.email, deliveries: found.deliveries, to: &writer)
        }
    }

    /// `{"approval_code"}`: that sandbox install becomes an approved test device.
    @Sendable func approveTestDevice(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let body = try request.jsonObjectBody()
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: ["approval_code"])
        var code: String?
        switch body["approval_code"] {
        case .string(let text)?:
            let normalized = text.trimmingCharacters(in: " ").uppercased()
            if ApprovalCode.isWellFormed(normalized) {
                code = normalized
            } else {
                errors.add(
                    "approval_code", "must be the \(ApprovalCode.length)-character code the sandbox app shows")
            }
        case nil, .null?: errors.add("approval_code", "can't be blank")
        default: errors.add("approval_code", "must be a string")
        }
        try errors.check()
        let (device, standing) = try devices.approveTestDevice(business: business, code: code!)
        return .json(
            .object([
                ("install_id", .string(device.deviceKey)), ("status", .string(standing.status)),
                ("approval_code", .string(standing.approvalCode)),
                ("last_seen_at", JSON(device.install?.lastSeenAt?.iso8601)),
            ]))
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
