import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// What an operator sends and follows by hand: news to users' inboxes, pushes to raw device tokens, the business's
/// inbox entries and each one's deliveries, and "retry now" for deliveries waiting out their backoff (after fixing
/// the network or a credential).
struct AdminMessagingController: Sendable {
    let admin: AdminAccess
    let news: NewsService
    let directory: DirectoryService

    func register(in router: inout Router) {
        router.post("/api/admin/businesses/{id}/notifications", admin.guarded(sendNews))
        router.get("/api/admin/businesses/{id}/notifications", admin.guarded(listNotifications))
        router.get("/api/admin/businesses/{id}/deliveries", admin.guarded(listDeliveries))
        router.post("/api/admin/businesses/{id}/deliveries/retry", admin.guarded(retryDeliveries))
        router.post("/api/admin/businesses/{id}/pushes", admin.guarded(sendPushes))
    }

    // MARK: - Sending

    @Sendable func sendNews(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let body = try admin.object(request)
        var errors = FieldErrors()
        // A field news does not know is refused by name: one ignored would be a setting silently lost.
        errors.refuseUnknown(
            body, known: ["user_ids", "title", "subtitle", "body", "media", "collapse_id", "cta"], prefix: "")
        let title = AdminInput.requiredString(body, "title", max: 500, &errors)
        let text = AdminInput.requiredString(body, "body", max: 2000, &errors, shape: .paragraph)
        let subtitle = AdminInput.optionalString(body, "subtitle", &errors)
        var media: MediaAttachment?
        if let value = body["media"], !value.isNull { media = admin.attachment(value, field: "media", &errors) }
        var collapseID: String?
        if let value = body["collapse_id"], !value.isNull {
            // Apple's limit; FCM's collapse_key takes the same.
            collapseID = value.stringValue
            // It travels as a header value: no control characters (a CR/LF would fail every send, not this call).
            if collapseID.map({ $0.isEmpty || $0.utf8.count > 64 || $0.utf8.contains { $0 < 0x20 || $0 == 0x7F } })
                ?? true
            {
                errors.add("collapse_id", "must be a string of 1 to 64 bytes without control characters")
            }
        }
        // A call to action: in the payload and the inbox entry as `cta` {label?, url}.
        var cta: CallToAction?
        if let value = body["cta"], !value.isNull {
            cta = CallToAction(json: value)
            if cta == nil || value.objectValue == nil {
                errors.add("cta", "must be {label?, url}")
            } else if !CampaignInput.isLink(cta!.url) {
                errors.add("cta.url", "must be an http(s) URL or an app link (not javascript:, data: or file:)")
            } else if (cta?.label?.count ?? 0) > 100 {
                errors.add("cta.label", "is too long (maximum is 100 characters)")
            } else if let label = cta?.label, let problem = DisplayText.problem(label, .line) {
                errors.add("cta.label", problem)
            }
            errors.refuseUnknown(value, known: ["label", "url"], prefix: "cta.")
        }
        try errors.check()
        let entries = try news.send(
            NewsService.News(
                title: title!, body: text!, subtitle: subtitle, media: media, collapseID: collapseID, cta: cta),
            business: business, to: try AdminAccess.userIDs(body))
        return .json(.object([("notification_ids", .array(entries.map { .int($0.id) }))]), status: .accepted)
    }

    /// `POST …/pushes`: a push to raw device tokens (`{"platform","tokens","title","body","subtitle"?,"data"?}`),
    /// through the same durable queue as every other push → 202 with one notification id per token.
    @Sendable func sendPushes(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let push = try DirectPushInput.push(try admin.object(request))
        let ids = try news.send(push, businessID: business.id)
        return .json(.object([("notification_ids", .array(ids.map { .int($0) }))]), status: .accepted)
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
        let retried = try news.retryNow(businessID: business.id, notificationID: notificationID)
        return .json(.object([("retried", .int(Int64(retried)))]))
    }

    // MARK: - Following

    /// `GET …/notifications?user_id=&limit=&offset=`: the business's inbox entries, newest first.
    @Sendable func listNotifications(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let page = try Page(request)
        var userID: Int64?
        if let text = request.queryValue("user_id") {
            guard let id = PathID.parse(text) else { throw HTTPError.invalid("user_id", "must be a user id") }
            userID = id
        }
        let entries = try directory.entries(
            businessID: business.id, userID: userID, limit: page.limit, offset: page.offset)
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

    @Sendable func listDeliveries(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        guard let text = request.queryValue("notification_id"), let id = Int64(text) else {
            throw HTTPError.invalid("notification_id", "is required (a notification id)")
        }
        let page = try Page(request)
        guard
            let deliveries = try directory.deliveries(
                businessID: business.id, notificationID: id, limit: page.limit, offset: page.offset)
        else { throw HTTPError.notFound("notification not found") }
        return .json { writer in
            writer.beginObject()
            writer.field("notification_id", id)
            writer.key("deliveries")
            writer.beginArray()
            for delivery in deliveries { Presenter.write(delivery, to: &writer) }
            writer.endArray()
            writer.endObject()
        }
    }
}
