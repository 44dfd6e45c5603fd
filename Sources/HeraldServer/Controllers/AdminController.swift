import HeraldCrypto
import HeraldDomain
import HeraldHTTP
import HeraldModel
import HeraldStore

/// The admin API (docs/openapi.json): businesses, their push credentials, templates, locations, news and deliveries.
/// Every call needs `Authorization: Bearer <HERALD_ADMIN_TOKEN>`. Secrets go in; none ever comes out.
struct AdminController: Sendable {
    let store: Store
    let auth: AdminAuthenticator
    let sealer: SecretSealer
    let notifications: NotificationService
    let clock: WallClock
    /// What `media` may name among the files Herald hosts.
    let hostedMedia: HostedMedia
    let credentialChanged: @Sendable (Int64, PushPlatform) -> Void

    func register(in router: inout Router) {
        router.post("/api/admin/businesses", guarded(createBusiness))
        router.get("/api/admin/businesses/{id}", guarded(showBusiness))
        router.put("/api/admin/businesses/{id}/apns", guarded(setAPNs))
        router.put("/api/admin/businesses/{id}/fcm", guarded(setFCM))
        router.get("/api/admin/businesses/{id}/templates", guarded(listTemplates))
        router.get("/api/admin/businesses/{id}/templates/{event}", guarded(showTemplate))
        router.put("/api/admin/businesses/{id}/templates/{event}", guarded(saveTemplate))
        router.post("/api/admin/businesses/{id}/templates/{event}/preview", guarded(previewTemplate))
        router.post("/api/admin/businesses/{id}/locations", guarded(createLocation))
        router.post("/api/admin/businesses/{id}/notifications", guarded(sendNews))
        router.get("/api/admin/businesses/{id}/deliveries", guarded(listDeliveries))
    }

    /// Wraps a handler with the admin token check.
    func guarded(_ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) -> HTTPHandler {
        let auth = self.auth
        return { request in
            try auth.authenticate(request)
            return try handler(request)
        }
    }

    /// The business named by the `{id}` path parameter; 404 when there is none.
    func business(_ request: HTTPRequest) throws -> Business {
        guard let id = request.parameter("id").flatMap(PathID.parse),
            let business = try store.read({ try $0.businesses.find(id: id) })
        else {
            throw HTTPError.notFound("business not found")
        }
        return business
    }

    /// Stores a business's credential (healthy: a replaced key is given its chance).
    private func saveCredential(_ credential: PushCredential) throws {
        try store.transaction { try $0.credentials.save(credential) }
    }

    /// The body as a JSON object; 400 otherwise.
    func object(_ request: HTTPRequest) throws -> JSON { try request.jsonObjectBody() }

    // MARK: - Businesses

    @Sendable func createBusiness(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try object(request)
        var errors = FieldErrors()
        let name = AdminInput.requiredString(body, "name", max: 200, &errors)
        try errors.check()
        let secret = AccessTokens.generate(prefix: "")
        let posKey = AccessTokens.generate(prefix: "hpos_")
        let clientID = Hex.encode(SecureRandom.bytes(count: 16))
        let sealedSecret = try sealer.seal(Array(secret.utf8), purpose: "business-secret")
        let apiKeys = AdminDeviceController.newAPIKeys()
        let now = clock.now()
        let business = try store.transaction { tx in
            let business = try tx.businesses.insert(
                name: name!, clientID: clientID, sealedSecret: sealedSecret, posKeyHash: AccessTokens.hash(posKey),
                at: now)
            try tx.businesses.setAPIKeys(
                id: business.id, liveHash: AccessTokens.hash(apiKeys.live),
                sandboxHash: AccessTokens.hash(apiKeys.sandbox))
            return business
        }
        return .json(
            .object([
                ("id", .int(business.id)), ("name", .string(business.name)), ("client", .string(clientID)),
                ("secret", .string(secret)), ("pos_key", .string(posKey)), ("api_key", .string(apiKeys.live)),
                ("sandbox_api_key", .string(apiKeys.sandbox)),
            ]), status: .created)
    }

    @Sendable func showBusiness(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try business(request)
        let (apns, fcm) = try store.read { tx in
            (
                try tx.credentials.find(businessID: business.id, platform: .apns),
                try tx.credentials.find(businessID: business.id, platform: .fcm)
            )
        }
        return .json(
            .object([
                ("id", .int(business.id)), ("name", .string(business.name)), ("client", .string(business.clientID)),
                ("settings", business.settings.json), ("apns", AdminDirectoryController.json(apns)),
                ("fcm", AdminDirectoryController.json(fcm)),
                ("created_at", .string(business.createdAt.iso8601)),
            ]))
    }

    // MARK: - Credentials

    @Sendable func setAPNs(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try business(request)
        let body = try object(request)
        var errors = FieldErrors()
        let keyText = AdminInput.requiredString(body, "key_p8", max: 10_000, &errors)
        if let keyText {
            do {
                _ = try P256PrivateKey(pemRepresentation: keyText)
            } catch let error as CryptoError where error.code == .unsupportedKey {
                errors.add("key_p8", "must be an Apple .p8 key (P-256); this is another kind of key")
            } catch {
                errors.add("key_p8", "is not a PEM private key (paste the whole .p8 file)")
            }
        }
        let keyID = AdminInput.requiredString(body, "key_id", max: 10, &errors)
        if let keyID, !AdminInput.isAppleIdentifier(keyID) {
            errors.add("key_id", "must be 10 letters or digits (the .p8 key's id)")
        }
        let teamID = AdminInput.requiredString(body, "team_id", max: 10, &errors)
        if let teamID, !AdminInput.isAppleIdentifier(teamID) {
            errors.add("team_id", "must be 10 letters or digits (your Apple team id)")
        }
        let topic = AdminInput.requiredString(body, "topic", max: 255, &errors)
        if let topic, !AdminInput.isBundleID(topic) {
            errors.add("topic", "must be the app's bundle id, like com.example.app")
        }
        let environment = body["environment"]?.stringValue ?? "production"
        if body["environment"] != nil,
            body["environment"]?.stringValue == nil || !["sandbox", "production"].contains(environment)
        {
            errors.add("environment", "must be sandbox or production")
        }
        try errors.check()
        try saveCredential(
            PushCredential(
                businessID: business.id, platform: .apns,
                settings: ["key_id": keyID!, "team_id": teamID!, "topic": topic!, "environment": environment],
                sealedKey: try sealer.seal(Array(keyText!.utf8), purpose: "apns-key"), updatedAt: clock.now()))
        credentialChanged(business.id, .apns)
        return .json(
            .object([
                ("key_id", .string(keyID!)), ("team_id", .string(teamID!)), ("topic", .string(topic!)),
                ("environment", .string(environment)), ("status", "ok"),
            ]))
    }

    @Sendable func setFCM(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try business(request)
        let body = try object(request)
        var errors = FieldErrors()
        guard let account = body["service_account"] else {
            throw HTTPError.invalid("service_account", "can't be blank (paste the service-account key file's JSON)")
        }
        // Some tools hand the key file over as a string of JSON.
        let parsed: JSON
        if let text = account.stringValue {
            guard let inner = try? JSON.parse(text) else { throw HTTPError.invalid("service_account", "is not JSON") }
            parsed = inner
        } else {
            parsed = account
        }
        guard case .object = parsed else {
            throw HTTPError.invalid("service_account", "must be the key file's JSON object")
        }
        if let type = parsed["type"], type.stringValue != "service_account" {
            errors.add("service_account.type", "must be service_account")
        }
        let projectID = AdminInput.requiredString(parsed, "project_id", max: 100, &errors, prefix: "service_account.")
        // It goes into the send URL's path (`/v1/projects/<id>/messages:send`): Google's form only.
        if let projectID, !Self.isFirebaseProjectID(projectID) {
            errors.add(
                "service_account.project_id",
                "must be a Firebase project id (6 to 30 lowercase letters, digits and hyphens, starting with a letter)")
        }
        let email = AdminInput.requiredString(parsed, "client_email", max: 320, &errors, prefix: "service_account.")
        if let email, !email.contains("@") { errors.add("service_account.client_email", "is invalid") }
        let tokenURI = AdminInput.requiredString(parsed, "token_uri", max: 2000, &errors, prefix: "service_account.")
        // The signed assertion it receives is worth an access token: never sent in the clear.
        if let tokenURI, !MediaInput.isWebURL(tokenURI, secure: true) {
            errors.add("service_account.token_uri", "must be an https URL")
        }
        if let key = AdminInput.requiredString(parsed, "private_key", max: 20_000, &errors, prefix: "service_account.")
        {
            do {
                _ = try RSAPrivateKey(pemRepresentation: key)
            } catch {
                errors.add("service_account.private_key", "is not an RSA private key of at least 2048 bits")
            }
        }
        try errors.check()
        var settings = ["project_id": projectID!, "client_email": email!, "token_uri": tokenURI!]
        if let keyID = parsed["private_key_id"]?.stringValue { settings["private_key_id"] = keyID }
        try saveCredential(
            PushCredential(
                businessID: business.id, platform: .fcm, settings: settings,
                sealedKey: try sealer.seal(parsed.encoded, purpose: "fcm-account"), updatedAt: clock.now()))
        credentialChanged(business.id, .fcm)
        return .json(
            .object([
                ("project_id", .string(projectID!)), ("client_email", .string(email!)), ("status", "ok"),
            ]))
    }

    // MARK: - Templates

    private func event(_ request: HTTPRequest) throws -> EventName {
        guard let name = request.parameter("event"), NotificationTemplate.default(for: EventName(name)) != nil else {
            throw HTTPError.notFound(
                "unknown event; events are: " + EventName.all.map(\.rawValue).joined(separator: ", "))
        }
        return EventName(name)
    }

    @Sendable func listTemplates(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try business(request)
        let resolved = try store.read { try notifications.templates($0, businessID: business.id) }
        let templates = EventName.all.compactMap { event in
            resolved[event].map { Presenter.json($0.template, customized: $0.customized) }
        }
        return .json(.array(templates))
    }

    /// A `media` value checked: `{url, type}` of a type iOS attaches, and, if it links to a file hosted here, one
    /// that was uploaded, of that type.
    func attachment(_ value: JSON, field: String, _ errors: inout FieldErrors) -> MediaAttachment? {
        let media = MediaInput.attachment(value, field: field, &errors)
        if let media { hostedMedia.check(media, field: field, &errors) }
        return media
    }

    /// Google's rule for project ids: 6–30 characters of `a-z`, `0-9` and `-`, a letter first, no hyphen last.
    static func isFirebaseProjectID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard (6...30).contains(bytes.count), let first = bytes.first, let last = bytes.last,
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first), last != UInt8(ascii: "-")
        else { return false }
        return bytes.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == UInt8(ascii: "-")
        }
    }

    @Sendable func showTemplate(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try business(request)
        let event = try event(request)
        let (template, customized) = try store.read {
            try notifications.template($0, businessID: business.id, event: event)!
        }
        return .json(Presenter.json(template, customized: customized))
    }

    /// Reads a template from `body` over `base`; fields left out keep `base`'s values.
    private func template(from body: JSON, over base: NotificationTemplate) throws -> NotificationTemplate {
        var template = base
        var errors = FieldErrors()
        for (field, keyPath) in [
            ("title", \NotificationTemplate.title), ("subtitle", \.subtitle), ("body", \.body), ("sound", \.sound),
        ] {
            guard let value = body[field] else { continue }
            if value.isNull {
                template[keyPath: keyPath] = ""
            } else if let text = value.stringValue {
                template[keyPath: keyPath] = text
            } else {
                errors.add(field, "must be a string")
            }
        }
        if let enabled = body["enabled"] {
            if let flag = enabled.boolValue {
                template.enabled = flag
            } else {
                errors.add("enabled", "must be true or false")
            }
        }
        if let media = body["media"] {
            template.media = media.isNull ? nil : attachment(media, field: "media", &errors)
        }
        try errors.check()
        let problems = template.validate()
        if !problems.isEmpty {
            var errors = FieldErrors()
            for problem in problems { errors.add(problem.field, problem.message) }
            try errors.check()
        }
        return template
    }

    @Sendable func saveTemplate(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try business(request)
        let event = try event(request)
        let (current, _) = try store.read { try notifications.template($0, businessID: business.id, event: event)! }
        let template = try template(from: try object(request), over: current)
        try PushSizeRule.check(template)
        let now = clock.now()
        try store.transaction { try $0.templates.save(businessID: business.id, template, at: now) }
        return .json(Presenter.json(template, customized: true))
    }

    @Sendable func previewTemplate(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try business(request)
        let event = try event(request)
        let body = try object(request)
        let (current, _) = try store.read { try notifications.template($0, businessID: business.id, event: event)! }
        var errors = FieldErrors()
        for field in ["template", "values"] where body[field].map({ !$0.isNull && $0.objectValue == nil }) ?? false {
            errors.add(field, "must be an object")
        }
        var values = Self.sampleValues(business: business)
        for pair in body["values"]?.objectValue ?? [] {
            if let text = pair.value.stringValue ?? pair.value.int64Value.map({ String($0) }) {
                values[pair.key] = text
            } else {
                errors.add("values." + pair.key, "must be a string or a whole number")
            }
        }
        try errors.check()
        let template = try template(from: body["template"] ?? .object([]), over: current)
        let rendered = template.render(values)
        return .json(
            .object([
                ("title", .string(rendered.title)), ("subtitle", JSON(rendered.subtitle)),
                ("body", .string(rendered.body)),
                ("sound", JSON(rendered.sound)), ("enabled", .bool(template.enabled)),
            ]))
    }

    /// The values a preview fills in when the caller gives none: the seed's own example.
    static func sampleValues(business: Business) -> [String: String] {
        [
            "first_name": "Jamie", "last_name": "Rivera", "business": business.name, "points": "12",
            "total_points": "112", "location": "Brooklyn Location", "transaction_id": "POS_6118542_1487057215",
            "discount": "3", "balance": "25.00", "offer": "Free Fries", "reward": "Free Fries", "amount": "5.00",
            "expiry": "2026-12-31", "survey": "Visit survey", "title": "Our new menu",
            "body": "Try the new burger today!",
        ]
    }

    // MARK: - Locations, news, deliveries

    @Sendable func createLocation(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try business(request)
        let body = try object(request)
        var errors = FieldErrors()
        let name = AdminInput.requiredString(body, "name", max: 200, &errors)
        var storeNumber: String?
        if let value = body["store_number"], !value.isNull {
            storeNumber = value.stringValue ?? value.int64Value.map { String($0) }
            if storeNumber == nil || storeNumber!.count > 50 {
                errors.add("store_number", "must be a string of at most 50 characters")
            }
        }
        try errors.check()
        let now = clock.now()
        let location = try store.transaction {
            try $0.locations.insert(businessID: business.id, name: name!, storeNumber: storeNumber, at: now)
        }
        return .json(
            .object([
                ("id", .int(location.id)), ("name", .string(location.name)),
                ("store_number", JSON(location.storeNumber)),
            ]), status: .created)
    }

    @Sendable func sendNews(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try business(request)
        let body = try object(request)
        var errors = FieldErrors()
        // A field news does not know is refused by name: one ignored would be a setting silently lost.
        errors.refuseUnknown(
            body, known: ["user_ids", "title", "subtitle", "body", "media", "collapse_id", "cta"], prefix: "")
        let title = AdminInput.requiredString(body, "title", max: 500, &errors)
        let text = AdminInput.requiredString(body, "body", max: 2000, &errors)
        let subtitle = AdminInput.optionalString(body, "subtitle", &errors)
        var media: MediaAttachment?
        if let value = body["media"], !value.isNull { media = attachment(value, field: "media", &errors) }
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
            }
            errors.refuseUnknown(value, known: ["label", "url"], prefix: "cta.")
        }
        try errors.check()

        let users = try AdminInput.users(body, store: store, businessID: business.id)
        var values = ["title": title!, "body": text!]
        if let subtitle { values["subtitle"] = subtitle }
        let now = clock.now()
        // One template for every recipient, read once; nothing is written unless every push fits.
        let entries = try store.transaction { tx in
            let notifier = notifications.notifier(for: business, in: tx, at: now)
            if try notifier.template(.news)?.enabled == false {
                // Asked for explicitly, so not silently nothing (as a disabled automatic event is).
                throw HTTPError.invalid(
                    "base", "the news template is disabled: enable it (PUT …/templates/news) to send news")
            }
            let drafts = try users.compactMap { user -> NotificationDraft? in
                var extras: [(key: String, value: JSON)] = [("u", .int(user.id))]
                if let cta { extras.append(("cta", cta.json)) }
                let notice = Notice(
                    user: user, event: .news, kind: .news, values: values, extras: .object(extras), media: media,
                    collapseID: collapseID)
                guard let draft = try notifier.draft(notice) else { return nil }
                try PushSizeRule.check(draft, field: "body")
                return draft
            }
            return try drafts.map { try notifier.publish($0) }
        }
        return .json(.object([("notification_ids", .array(entries.map { .int($0.id) }))]), status: .accepted)
    }

    @Sendable func listDeliveries(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try business(request)
        guard let text = request.queryValue("notification_id"), let id = Int64(text) else {
            throw HTTPError.invalid("notification_id", "is required (a notification id)")
        }
        let page = try Page(request)
        let deliveries = try store.read { tx -> [Delivery]? in
            guard try tx.inbox.find(businessID: business.id, id: id) != nil else { return nil }
            return try tx.deliveries.all(notificationID: id, limit: page.limit, offset: page.offset)
        }
        guard let deliveries else { throw HTTPError.notFound("notification not found") }
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
