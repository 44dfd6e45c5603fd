import HeraldDomain
import HeraldHTTP
import HeraldModel
import HeraldStore

/// What an operator running Herald looks up and does by hand: a business's users (by email), its inbox entries,
/// and "retry now" for deliveries waiting out their backoff (after fixing the network or a credential).
struct AdminOperatorController: Sendable {
    let store: Store
    let admin: AdminController
    let clock: WallClock
    let notifications: NotificationService

    func register(in router: inout Router) {
        router.get("/api/admin/businesses/{id}/users", admin.guarded(listUsers))
        router.get("/api/admin/businesses/{id}/notifications", admin.guarded(listNotifications))
        router.post("/api/admin/businesses/{id}/deliveries/retry", admin.guarded(retryDeliveries))
        router.post("/api/admin/businesses/{id}/pushes", admin.guarded(sendPushes))
    }

    /// `GET …/users?email=&limit=&offset=`: the business's users by id, or the one with that email.
    @Sendable func listUsers(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let page = try Page(request)
        let email = request.queryValue("email").map { $0.lowercased() }
        let users = try store.read {
            try $0.users.page(businessID: business.id, email: email, limit: page.limit, offset: page.offset)
        }
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

    /// `GET …/notifications?user_id=&limit=&offset=`: the business's inbox entries, newest first.
    @Sendable func listNotifications(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let page = try Page(request)
        var userID: Int64?
        if let text = request.queryValue("user_id") {
            guard let id = PathID.parse(text) else { throw HTTPError.invalid("user_id", "must be a user id") }
            userID = id
        }
        let entries = try store.read {
            try $0.inbox.page(businessID: business.id, userID: userID, limit: page.limit, offset: page.offset)
        }
        return .list(entries) { entry, writer in
            writer.beginObject()
            writer.field("id", entry.id)
            writer.field("user_id", entry.draft.userID)
            writer.field("kind", entry.kind.rawValue)
            writer.field("event", entry.draft.event)
            writer.field("title", entry.draft.title)
            writer.field("body", entry.draft.body)
            writer.field("campaign_id", entry.draft.campaignID)
            writer.field("created_at", entry.createdAt)
            writer.field("read_at", entry.readAt)
            writer.endObject()
        }
    }

    /// `POST …/deliveries/retry` (body optional: `{"notification_id": n}`): queued deliveries are due now.
    @Sendable func retryDeliveries(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        var notificationID: Int64?
        if !request.body.isEmpty {
            let body = try admin.object(request)
            var errors = FieldErrors()
            errors.refuseUnknown(body, known: ["notification_id"], prefix: "")
            if let value = body["notification_id"], !value.isNull {
                notificationID = value.int64Value
                if notificationID == nil { errors.add("notification_id", "must be a notification id") }
            }
            try errors.check()
        }
        let now = clock.now()
        let retried = try store.transaction {
            try $0.deliveries.retryNow(businessID: business.id, notificationID: notificationID, at: now)
        }
        return .json(.object([("retried", .int(Int64(retried)))]))
    }

    /// `POST …/pushes`: a push to raw device tokens (`{"platform","tokens","title","body","subtitle"?,"data"?}`),
    /// through the same durable queue as every other push → 202 with one notification id per token.
    @Sendable func sendPushes(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let body = try admin.object(request)
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: ["platform", "tokens", "title", "subtitle", "body", "data"], prefix: "")
        var platform: PushPlatform?
        switch body["platform"]?.stringValue {
        case "apns", "ios": platform = .apns
        case "fcm", "android": platform = .fcm
        default: errors.add("platform", "must be apns or fcm")
        }
        var tokens: [String] = []
        if let list = body["tokens"]?.arrayValue, (1...1000).contains(list.count) {
            for (index, value) in list.enumerated() {
                guard let token = value.stringValue, Self.isToken(token, platform: platform) else {
                    errors.add(
                        "tokens[\(index)]",
                        platform == .fcm
                            ? "must be an FCM registration token"
                            : "must be an APNs device token (hex, at least 64 digits)")
                    continue
                }
                if !tokens.contains(token) { tokens.append(token) }
            }
        } else {
            errors.add("tokens", "must be a list of 1 to 1000 device tokens")
        }
        let title = AdminInput.requiredString(body, "title", max: 500, &errors)
        let text = AdminInput.requiredString(body, "body", max: 2000, &errors)
        let subtitle = AdminInput.optionalString(body, "subtitle", &errors)
        var data = JSON.object([])
        if let value = body["data"], !value.isNull {
            if let pairs = value.objectValue,
                pairs.allSatisfy({ !["aps", "n"].contains($0.key) && $0.value.stringValue != nil })
            {
                data = value
            } else {
                errors.add("data", "must be an object of string values (not aps or n)")
            }
        }
        try errors.check()
        let push = DirectPush(
            platform: platform!, tokens: tokens, title: title!, subtitle: subtitle, body: text!, data: data)
        let now = clock.now()
        let notifications = self.notifications
        let ids = try store.transaction { tx in
            try notifications.send(push, businessID: business.id, in: tx, at: now)
        }
        return .json(.object([("notification_ids", .array(ids.map { .int($0) }))]), status: .accepted)
    }

    static func isToken(_ token: String, platform: PushPlatform?) -> Bool {
        if platform == .fcm {
            return (1...4096).contains(token.utf8.count) && !token.utf8.contains { $0 <= 0x20 || $0 >= 0x7F }
        }
        return token.utf8.count >= 64 && token.utf8.count <= 200 && token.utf8.count % 2 == 0
            && token.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0)
            }
    }
}
