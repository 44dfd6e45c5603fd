import HeraldDomain
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

extension StoreBackend: CustomTestStringConvertible {
    public var testDescription: String { rawValue }
}

/// Fixed times for tests.
func at(_ seconds: Int64) -> Timestamp { Timestamp(milliseconds: 1_700_000_000_000 + seconds * 1000) }

/// The domain's operations at a given time, as tests call them.
extension StoreFixture {
    func location() throws -> Location {
        try store.transaction {
            try $0.locations.insert(businessID: business.id, name: "Brooklyn Location", storeNumber: "7", at: at(0))
        }
    }

    func offer(
        validFor: Int64? = 3600, discount: Money = Money(cents: 500), customize: (inout Offer) -> Void = { _ in }
    )
        throws -> Offer
    {
        var offer = Offer(
            id: 0, businessID: business.id, name: "Free Fries", description: "Any size", imageURL: nil, media: nil,
            discount: discount, availableFrom: nil, availableUntil: nil, expiresAt: nil, validForSeconds: validFor,
            createdAt: at(0))
        customize(&offer)
        let made = offer
        return try store.transaction { try $0.offers.insert(made, at: at(0)) }
    }

    func checkin(_ new: NewCheckin, at time: Timestamp) throws -> CheckinResult {
        clock.set(time)
        return try loyalty.recordCheckin(new, business: business)
    }

    func change(
        _ id: Int64, from: [Checkin.Status], to: Checkin.Status, event: EventName, at time: Timestamp,
        business other: Business? = nil
    ) throws -> CheckinResult {
        clock.set(time)
        return try loyalty.changeCheckin(business: other ?? business, id: id, from: from, to: to, event: event)
    }

    func grant(_ offer: Offer, to users: [Int64], at time: Timestamp) throws -> [(
        reward: Reward, notification: InboxEntry?
    )] {
        clock.set(time)
        return try loyalty.grantOffer(
            business: business, offerID: offer.id, userIDs: users, source: "campaign_offer", event: .campaignOffer)
    }

    func code(_ rewardID: Int64, for user: User, at time: Timestamp) throws -> Reward {
        clock.set(time)
        return try loyalty.issueRedemptionCode(userID: user.id, rewardID: rewardID).reward
    }

    func honor(_ code: String, at place: Location, transactionID: String?, at time: Timestamp) throws
        -> RedemptionResult
    {
        clock.set(time)
        return try loyalty.honorRedemptionCode(
            business: business, code: code, locationID: place.id, transactionID: transactionID)
    }

    func liveRewards(_ user: User, at time: Timestamp) throws -> [(reward: Reward, offer: Offer)] {
        clock.set(time)
        return try loyalty.liveRewards(userID: user.id)
    }

    func settings(_ change: (inout BusinessSettings) -> Void) throws {
        var settings = try store.read { try $0.businesses.find(id: business.id) }!.settings
        change(&settings)
        let changed = settings
        try store.transaction { try $0.businesses.updateSettings(id: business.id, changed) }
    }
}
