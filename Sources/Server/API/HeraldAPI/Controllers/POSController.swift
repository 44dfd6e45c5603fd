import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// The POS and integration API (docs/openapi.json): check-ins and their follow-ups, redemptions, the gift-card
/// webhook. Each call writes its records, inbox entry and delivery jobs in one transaction.
struct POSController: Sendable {
    let auth: POSAuthenticator
    let accounts: AccountService
    let loyalty: LoyaltyService

    func register(in router: inout Router) {
        router.post("/api/pos/checkins", checkin)
        router.post("/api/pos/checkins/{id}/retry", retryCheckin)
        router.post("/api/pos/checkins/{id}/void", voidCheckin)
        router.post("/api/pos/redemptions", redemption)
        router.post("/api/webhooks/gift_cards", giftCard)
    }

    private func body(_ request: HTTPRequest) throws -> JSON { try request.jsonObjectBody() }

    /// The user named by `user_id`, `email` or `phone`; 404 on that field when there is none.
    private func user(_ body: JSON, business: Business, _ errors: inout FieldErrors) throws -> User? {
        try POSInput.user(body, &errors).map { try accounts.user(businessID: business.id, $0) }
    }

    private func checkinResponse(_ result: CheckinResult, changed: Bool = false) -> HTTPResponse {
        .json(
            .object([
                ("checkin_id", .int(result.checkin.id)), ("transaction_id", .string(result.checkin.transactionID)),
                ("notification_id", JSON(result.notification?.id)), ("status", .string(result.checkin.status.rawValue)),
                ("points", .int(result.checkin.points)), ("first_checkin", .bool(result.checkin.isFirst)),
                ("total_points", .int(result.totalPoints)), ("user_survey_id", JSON(result.checkin.userSurveyID)),
                ("conversion_notification_ids", .array(result.conversions.map { .int($0.id) })),
            ]), status: result.created && !changed ? .created : .ok)
    }

    @Sendable func checkin(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try auth.business(request)
        let body = try body(request)
        var errors = FieldErrors()
        let user = try user(body, business: business, &errors)
        let locationID = POSInput.requiredID(body, "location_id", &errors)
        let points = POSInput.points(body["points"], &errors)
        let source = body["source"].map { $0.stringValue ?? "" } ?? "qr"
        if !POSInput.sources.contains(source) {
            errors.add("source", "must be one of qr, phone, online_ordering, pos_scanner")
        }
        let transactionID = POSInput.transactionID(body["transaction_id"], &errors)
        let status = body["status"]?.stringValue ?? "approved"
        if body["status"] != nil, !["approved", "pending"].contains(status) {
            errors.add("status", "must be approved or pending")
        }
        var surveyID: Int64?
        if let value = body["survey_id"], !value.isNull {
            surveyID = POSInput.id(value)
            if surveyID == nil { errors.add("survey_id", "must be a survey id") }
        }
        try errors.check()
        let result = try loyalty.recordCheckin(
            NewCheckin(
                userID: user!.id, locationID: locationID!, points: points!, source: source,
                transactionID: transactionID, status: Checkin.Status(status), surveyID: surveyID,
                event: Checkin.event(status: Checkin.Status(status), source: source)),
            business: business)
        return checkinResponse(result)
    }

    private func checkinID(_ request: HTTPRequest) throws -> Int64 {
        guard let id = request.parameter("id").flatMap(PathID.parse) else {
            throw HTTPError.notFound("check-in not found")
        }
        return id
    }

    /// A pending (or failed) check-in confirmed or refused: `{"outcome":"success"|"fail"}`.
    @Sendable func retryCheckin(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try auth.business(request)
        let id = try checkinID(request)
        let body = try body(request)
        guard let outcome = body["outcome"]?.stringValue, ["success", "fail"].contains(outcome) else {
            throw HTTPError.invalid("outcome", "must be success or fail")
        }
        let result = try loyalty.retryCheckin(business: business, id: id, succeeded: outcome == "success")
        return checkinResponse(result, changed: true)
    }

    /// An approved (or pending) check-in cancelled: its points are taken back.
    @Sendable func voidCheckin(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try auth.business(request)
        let id = try checkinID(request)
        let result = try loyalty.voidCheckin(business: business, id: id)
        return checkinResponse(result, changed: true)
    }

    @Sendable func redemption(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try auth.business(request)
        let body = try body(request)
        var errors = FieldErrors()
        let locationID = POSInput.requiredID(body, "location_id", &errors)
        let transactionID = POSInput.transactionID(body["transaction_id"], &errors)
        let result: RedemptionResult
        if let codeValue = body["redemption_code"] {
            guard let code = codeValue.stringValue?.trimmingCharacters(in: " ").uppercased(), !code.isEmpty,
                code.count <= 32
            else {
                throw HTTPError.invalid("redemption_code", "must be the code the app shows")
            }
            try errors.check()
            result = try loyalty.honorRedemptionCode(
                business: business, code: code, locationID: locationID!, transactionID: transactionID)
        } else {
            let user = try user(body, business: business, &errors)
            let discount = POSInput.amount(body["discount"], field: "discount", &errors)
            // A discount of nothing is no redemption: it would push "You've got a discount" with rd 0.
            if let discount, discount <= .zero { errors.add("discount", "must be greater than 0") }
            try errors.check()
            result = try loyalty.recordDiscount(
                business: business, userID: user!.id, locationID: locationID!, discount: discount!,
                transactionID: transactionID)
        }
        return .json(
            .object([
                ("redemption_id", .int(result.redemption.id)), ("notification_id", JSON(result.notification?.id)),
                ("discount", result.redemption.discount.json),
                ("reward_id", JSON(result.redemption.rewardID)),
            ]), status: result.created ? .created : .ok)
    }

    @Sendable func giftCard(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try auth.business(request)
        let body = try body(request)
        var errors = FieldErrors()
        let uuid = body["uuid"]?.stringValue?.trimmingCharacters(in: " ") ?? ""
        if uuid.isEmpty || uuid.count > 100 || uuid.contains(where: { $0.isWhitespace || $0 == "/" }) {
            errors.add("uuid", "must be the card's id (at most 100 characters, no spaces or slashes)")
        } else if let problem = DisplayText.problem(uuid, .line) {
            errors.add("uuid", problem)
        }
        let userID = POSInput.requiredID(body, "user_id", &errors)
        let balance = POSInput.amount(body["balance"], field: "balance", &errors)
        try errors.check()
        let result = try loyalty.updateGiftCard(business: business, uuid: uuid, userID: userID!, balance: balance!)
        return .json(
            .object([
                ("gift_card_id", .int(result.giftCard.id)), ("uuid", .string(uuid)),
                ("balance", .double(result.giftCard.balance.decimal)),
                ("notification_id", JSON(result.notification?.id)),
            ]), status: .accepted)
    }
}
