import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// The admin API's loyalty program: offers and their grants, and surveys sent to users.
struct AdminLoyaltyController: Sendable {
    let admin: AdminAccess
    let loyalty: LoyaltyService

    func register(in router: inout Router) {
        router.post("/api/admin/businesses/{id}/offers", admin.guarded(createOffer))
        router.get("/api/admin/businesses/{id}/offers/{offer_id}", admin.guarded(showOffer))
        router.post("/api/admin/businesses/{id}/offers/{offer_id}/grant", admin.guarded(grantOffer))
        router.post("/api/admin/businesses/{id}/surveys", admin.guarded(createSurvey))
        router.post("/api/admin/businesses/{id}/surveys/{survey_id}/send", admin.guarded(sendSurvey))
    }

    static func json(_ offer: Offer) -> JSON {
        .object([
            ("id", .int(offer.id)), ("name", .string(offer.name)), ("description", .string(offer.description)),
            ("image_url", JSON(offer.imageURL)),
            ("media", offer.media?.json ?? .null),
            ("discount", .double(offer.discount.decimal)), ("available_from", JSON(offer.availableFrom?.iso8601)),
            ("available_until", JSON(offer.availableUntil?.iso8601)), ("expires_at", JSON(offer.expiresAt?.iso8601)),
            ("valid_days", offer.validForSeconds.map { .double(Double($0) / 86_400) } ?? .null),
            ("created_at", .string(offer.createdAt.iso8601)),
        ])
    }

    private func offerID(_ request: HTTPRequest) throws -> Int64 {
        guard let id = request.parameter("offer_id").flatMap(PathID.parse) else {
            throw HTTPError.notFound("offer not found")
        }
        return id
    }

    @Sendable func createOffer(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let body = try admin.object(request)
        var errors = FieldErrors()
        errors.refuseUnknown(
            body,
            known: [
                "name", "description", "image_url", "media", "discount", "available_from", "available_until",
                "expires_at", "valid_days",
            ], prefix: "")
        let name = AdminInput.requiredString(body, "name", max: 200, &errors)
        var description = ""
        if let value = body["description"], !value.isNull {
            if let text = value.stringValue {
                description = text
                if let problem = DisplayText.problem(text, .paragraph) { errors.add("description", problem) }
            } else {
                errors.add("description", "must be a string")
            }
        }
        if description.count > 2000 { errors.add("description", "is too long (maximum is 2000 characters)") }
        var imageURL: String?
        if let value = body["image_url"], !value.isNull {
            imageURL = value.stringValue
            if let url = imageURL {
                admin.checkMediaURL(url, field: "image_url", &errors)
            } else {
                errors.add("image_url", "must be an https URL")
            }
        }
        var media: MediaAttachment?
        if let value = body["media"], !value.isNull { media = admin.attachment(value, field: "media", &errors) }
        let discount = POSInput.amount(body["discount"] ?? 0, field: "discount", &errors)
        func time(_ field: String) -> Timestamp? {
            guard let value = body[field], !value.isNull else { return nil }
            guard let text = value.stringValue, let time = Timestamp(iso8601: text) else {
                errors.add(field, "must be an ISO 8601 time like 2026-12-31T23:59:59Z")
                return nil
            }
            return time
        }
        let from = time("available_from")
        let until = time("available_until")
        let expires = time("expires_at")
        if let from, let until, until <= from { errors.add("available_until", "must be after available_from") }
        var validFor: Int64?
        if let value = body["valid_days"], !value.isNull {
            if let days = value.doubleValue, days > 0, days <= 3650 {
                validFor = Int64(days * 86_400)
            } else {
                errors.add("valid_days", "must be a number of days greater than 0 and at most 3650")
            }
        }
        try errors.check()
        let offer = try loyalty.createOffer(
            Offer(
                id: 0, businessID: business.id, name: name!, description: description, imageURL: imageURL,
                media: media, discount: discount ?? .zero, availableFrom: from, availableUntil: until,
                expiresAt: expires, validForSeconds: validFor, createdAt: .init(milliseconds: 0)))
        return .json(Self.json(offer), status: .created)
    }

    @Sendable func showOffer(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let id = try offerID(request)
        guard let offer = try loyalty.offer(businessID: business.id, id: id) else {
            throw HTTPError.notFound("offer not found")
        }
        return .json(Self.json(offer))
    }

    /// Grants an offer to users: each grant a reward, an inbox entry and a push (`campaign_offer`).
    @Sendable func grantOffer(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let body = try admin.object(request)
        try FieldErrors.refusingUnknown(body, known: ["user_ids"])
        let id = try offerID(request)
        let granted = try loyalty.grantOffer(
            business: business, offerID: id, userIDs: try AdminAccess.userIDs(body), source: "campaign_offer",
            event: .campaignOffer)
        return .json(
            .object([
                ("reward_ids", .array(granted.map { .int($0.reward.id) })),
                ("notification_ids", .array(granted.compactMap { $0.notification.map { .int($0.id) } })),
            ]), status: .accepted)
    }

    /// A survey: questions of the seed's types, checked by the same `SurveyDefinition` the SDK uses.
    @Sendable func createSurvey(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let body = try admin.object(request)
        try FieldErrors.refusingUnknown(body, known: ["title", "questions", "url"])
        let definition: SurveyDefinition
        do {
            definition = try SurveyDefinition(json: body)
        } catch {
            var errors = FieldErrors()
            for problem in error.problems { errors.add(problem.field, problem.message) }
            try errors.check()
            throw HTTPError.invalid("survey", "is invalid")
        }
        var url: String?
        if let value = body["url"], !value.isNull {
            guard let text = value.stringValue, MediaInput.isWebURL(text) else {
                throw HTTPError.invalid("url", "must be an http or https URL (an external survey page), or left out")
            }
            url = text
        }
        let survey = try loyalty.createSurvey(businessID: business.id, definition, url: url)
        return .json(.object([("id", .int(survey.id)), ("title", .string(survey.title))]), status: .created)
    }

    /// Sends a survey: a user survey, an inbox entry and an `s` push per user.
    @Sendable func sendSurvey(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let body = try admin.object(request)
        guard let surveyID = request.parameter("survey_id").flatMap(PathID.parse) else {
            throw HTTPError.notFound("survey not found")
        }
        try FieldErrors.refusingUnknown(body, known: ["user_ids", "location_id"])
        let userIDs = try AdminAccess.userIDs(body)
        var locationID: Int64?
        if let value = body["location_id"], !value.isNull {
            guard let id = POSInput.id(value) else { throw HTTPError.invalid("location_id", "must be a location id") }
            locationID = id
        }
        // Without a location_id, each user is asked about their latest visit.
        let sent = try loyalty.sendSurvey(
            business: business, surveyID: surveyID, userIDs: userIDs, locationID: locationID)
        return .json(
            .object([
                ("user_survey_ids", .array(sent.map { .int($0.userSurvey.id) })),
                ("notification_ids", .array(sent.compactMap { $0.notification.map { .int($0.id) } })),
            ]), status: .accepted)
    }
}
