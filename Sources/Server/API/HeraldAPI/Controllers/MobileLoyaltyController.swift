import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// The mobile API's loyalty calls (docs/openapi.json): offers and their redemption codes, and the callbacks the app
/// makes when a push points it somewhere — Transaction Details (`t`), Gift Card Balance (`gc`), Fetch User Survey (`s`).
struct MobileLoyaltyController: Sendable {
    let auth: MobileAuthenticator
    let loyalty: LoyaltyService
    let surveyLinks: SurveyLinks

    func register(in router: inout Router) {
        router.get("/api2/mobile/offers", offers)
        router.post("/api2/mobile/redemptions", redeem)
        router.get("/api2/mobile/checkins/transactions", transaction)
        router.get("/api2/mobile/gift_cards/{uuid}/balance", giftCardBalance)
        router.get("/api2/mobile/survey_details", surveyDetails)
        router.post("/api2/mobile/surveys/{user_survey_id}/answers", submitSurvey)
    }

    /// The signed-in user (and their business) of a mobile call, with its parameters.
    func signedIn(_ request: HTTPRequest) throws -> (RequestParameters, Business, User) {
        let call = try auth.signedIn(request)
        return (call.parameters, call.client.business, call.user)
    }

    static func write(_ reward: Reward, _ offer: Offer, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("reward_id", reward.id)
        writer.field("offer_id", offer.id)
        writer.field("name", offer.name)
        writer.field("description", offer.description)
        writer.field("image_url", offer.imageURL)
        writer.field("media", offer.media?.json ?? .null)
        writer.field("discount", offer.discount.decimal)
        writer.field("source", reward.source)
        writer.field("granted_at", reward.grantedAt)
        // Redeemable from and until (the offer's window; nil: no bound), so the screen can say "from Monday".
        writer.field("available_from", offer.availableFrom)
        writer.field("available_until", offer.availableUntil)
        writer.field("expires_at", reward.expiresAt)
        writer.field("read_at", reward.readAt)
        writer.field("redemption_code", reward.redemptionCode)
        writer.endObject()
    }

    /// The user's live offers: what the offer-details screen shows.
    @Sendable func offers(_ request: HTTPRequest) throws -> HTTPResponse {
        let (_, _, user) = try signedIn(request)
        let rewards = try loyalty.liveRewards(userID: user.id)
        return .json { writer in
            writer.beginObject()
            writer.key("rewards")
            writer.beginArray()
            for (reward, offer) in rewards { Self.write(reward, offer, to: &writer) }
            writer.endArray()
            writer.endObject()
        }
    }

    /// The redeem button: a code the POS honours once.
    @Sendable func redeem(_ request: HTTPRequest) throws -> HTTPResponse {
        let (parameters, _, user) = try signedIn(request)
        guard let rewardID = parameters.int64("reward_id"), rewardID > 0 else {
            throw HTTPError.invalid("reward_id", "is required (an id from GET /api2/mobile/offers)")
        }
        let (coded, offer) = try loyalty.issueRedemptionCode(userID: user.id, rewardID: rewardID)
        return .json(
            .object([
                ("redemption_code", JSON(coded.redemptionCode)), ("reward_id", .int(coded.id)),
                ("name", .string(offer.name)),
                ("discount", .double(offer.discount.decimal)), ("expires_at", JSON(coded.expiresAt?.iso8601)),
            ]), status: .created)
    }

    /// Transaction Details: the check-in a push's `t` names, as Punchh shows it, and the redemptions on it.
    @Sendable func transaction(_ request: HTTPRequest) throws -> HTTPResponse {
        let call = try auth.signedIn(request)
        let (parameters, business, user) = (call.parameters, call.client.business, call.user)
        guard let transactionID = parameters.string("transaction_id"), !transactionID.isEmpty else {
            throw HTTPError.invalid("transaction_id", "is required")
        }
        let details = try loyalty.transaction(businessID: business.id, userID: user.id, transactionID: transactionID)
        let (checkin, location) = (details.checkin, details.location)
        let surveyURL = details.survey.map { surveyLinks.url($0.survey, $0.userSurvey) }
        let total = user.points
        return .json { writer in
            writer.beginObject()
            writer.key("checkin")
            writer.beginObject()
            writer.field("checkin_id", checkin.id)
            writer.field("transaction_id", checkin.transactionID)
            writer.field("created_at", checkin.createdAt)
            writer.field("location_id", checkin.locationID)
            writer.field("location_name", location?.name)
            writer.field("store_number", location?.storeNumber)
            writer.field("points_earned", checkin.points)
            writer.field("total_points", total)
            writer.field("current_membership_level", business.settings.membershipLevel(points: total))
            writer.field(
                "previous_membership_level",
                business.settings.membershipLevel(points: details.pointsBefore(balance: total)))
            writer.field("first_checkin", checkin.isFirst)
            writer.field("status", checkin.status.rawValue)
            writer.field("pending_refresh", checkin.status == .pending)
            writer.field("survey_url", surveyURL)
            writer.field("user_survey_id", checkin.userSurveyID)
            writer.endObject()
            writer.key("redemptions")
            writer.beginArray()
            for redemption in details.redemptions {
                writer.beginObject()
                writer.field("redemption_id", redemption.id)
                writer.field("redemption_status", "honored")
                writer.field("redeemed_value", redemption.discount.decimal)
                writer.field("redeemable_id", redemption.rewardID)
                writer.field("created_at", redemption.createdAt)
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
    }

    /// Gift Card Balance: what the silent `gc` push asks the app to refresh. The card is named by the processor's
    /// uuid or by the push's `gc` (Herald's id for it), so an app can call it with either.
    @Sendable func giftCardBalance(_ request: HTTPRequest) throws -> HTTPResponse {
        let (_, business, user) = try signedIn(request)
        let reference = request.parameter("uuid") ?? ""
        let card = try loyalty.giftCard(
            businessID: business.id, userID: user.id, uuid: reference, id: PathID.parse(reference))
        return .json(
            .object([
                ("gift_card_id", .int(card.id)), ("uuid", .string(card.uuid)),
                ("balance", .double(card.balance.decimal)),
                ("updated_at", .string(card.updatedAt.iso8601)),
            ]))
    }
}

extension MobileLoyaltyController {
    /// The user survey id a call names (the push's `s`): input, checked before anything is looked up.
    private func userSurveyID(_ id: Int64?, given: Bool) throws -> Int64 {
        guard let id, id > 0 else {
            throw HTTPError.invalid(
                "user_survey_id", given ? "is invalid (the push's s: a whole number)" : "is required (the push's s)")
        }
        return id
    }

    /// Fetch User Survey: the push's `s` → the survey's page (`survey_url`, for a web view) and its questions
    /// (for an app that draws the survey itself).
    @Sendable func surveyDetails(_ request: HTTPRequest) throws -> HTTPResponse {
        let call = try auth.signedIn(request)
        let (userSurvey, survey) = try loyalty.userSurvey(
            userID: call.user.id,
            id: userSurveyID(call.parameters.int64("user_survey_id"), given: call.parameters.has("user_survey_id")))
        return .json(
            .object([
                ("id", .int(userSurvey.id)), ("survey_id", .int(survey.id)),
                ("survey_url", .string(surveyLinks.url(survey, userSurvey))),
                ("location_id", JSON(userSurvey.locationID)),
                ("title", .string(survey.title)), ("questions", survey.definition["questions"] ?? .array([])),
                ("submitted_at", JSON(userSurvey.submittedAt?.iso8601)),
            ]))
    }

    /// The app's answers, checked by the same `SurveyValidator` the SDK runs before sending them:
    /// 422 `{"errors":{"<question id>":["…"]}}` when they don't fit; stored once.
    @Sendable func submitSurvey(_ request: HTTPRequest) throws -> HTTPResponse {
        let (parameters, _, user) = try signedIn(request)
        let stored = try loyalty.submitSurvey(
            userID: user.id,
            userSurveyID: userSurveyID(request.parameter("user_survey_id").flatMap(PathID.parse), given: true),
            answers: parameters.body["answers"] ?? .null)
        return .json(
            .object([
                ("id", .int(stored.id)), ("submitted_at", JSON(stored.submittedAt?.iso8601)),
                ("answers", stored.answers ?? .null),
            ]))
    }
}
