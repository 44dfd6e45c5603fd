import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// The admin API's templates: each event's words for a business, its own or the default, saved and previewed.
struct AdminTemplateController: Sendable {
    let admin: AdminAccess
    let templates: TemplateService

    func register(in router: inout Router) {
        router.get("/api/admin/businesses/{id}/templates", admin.guarded(listTemplates))
        router.get("/api/admin/businesses/{id}/templates/{event}", admin.guarded(showTemplate))
        router.put("/api/admin/businesses/{id}/templates/{event}", admin.guarded(saveTemplate))
        router.post("/api/admin/businesses/{id}/templates/{event}/preview", admin.guarded(previewTemplate))
    }

    private func event(_ request: HTTPRequest) throws -> EventName {
        guard let name = request.parameter("event"), NotificationTemplate.default(for: EventName(name)) != nil else {
            throw HTTPError.notFound(
                "unknown event; events are: " + EventName.all.map(\.rawValue).joined(separator: ", "))
        }
        return EventName(name)
    }

    /// The template `business` uses for the event the path names.
    private func current(_ business: Business, _ event: EventName) throws -> (
        template: NotificationTemplate, customized: Bool
    ) {
        guard let found = try templates.find(businessID: business.id, event: event) else {
            throw HTTPError.notFound("unknown event")
        }
        return found
    }

    @Sendable func listTemplates(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let resolved = try templates.all(businessID: business.id)
        return .json(
            .array(
                EventName.all.compactMap { event in
                    resolved[event].map { Presenter.json($0.template, customized: $0.customized) }
                }))
    }

    @Sendable func showTemplate(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let (template, customized) = try current(business, try event(request))
        return .json(Presenter.json(template, customized: customized))
    }

    /// Reads a template from `body` over `base`; fields left out keep `base`'s values, fields it does not know are
    /// refused (named with `prefix`).
    private func template(from body: JSON, over base: NotificationTemplate, prefix: String = "") throws
        -> NotificationTemplate
    {
        var template = base
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: ["title", "subtitle", "body", "sound", "enabled", "media"], prefix: prefix)
        for (field, keyPath) in [
            ("title", \NotificationTemplate.title), ("subtitle", \.subtitle), ("body", \.body), ("sound", \.sound),
        ] {
            guard let value = body[field] else { continue }
            if value.isNull {
                template[keyPath: keyPath] = ""
            } else if let text = value.stringValue {
                if let problem = DisplayText.problem(text, field == "body" ? .paragraph : .line) {
                    errors.add(field, problem)
                }
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
            template.media = media.isNull ? nil : admin.attachment(media, field: "media", &errors)
        }
        try errors.check()
        for problem in template.validate() { errors.add(problem.field, problem.message) }
        try errors.check()
        return template
    }

    @Sendable func saveTemplate(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let (current, _) = try current(business, try event(request))
        let template = try template(from: try admin.object(request), over: current)
        try templates.save(businessID: business.id, template)
        return .json(Presenter.json(template, customized: true))
    }

    @Sendable func previewTemplate(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let (current, _) = try current(business, try event(request))
        let body = try admin.object(request)
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: ["template", "values"], prefix: "")
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
        let template = try template(from: body["template"] ?? .object([]), over: current, prefix: "template.")
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
}
