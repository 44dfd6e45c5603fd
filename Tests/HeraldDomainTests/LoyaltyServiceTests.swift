import HeraldDomain
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

@Suite("Domain conformance: loyalty")
struct LoyaltyServiceTests {
    @Test(arguments: StoreBackend.allCases)
    func checkinsCreditPointsOnceAndKnowTheFirst(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let store = world.store
        let place = try world.location()
        try world.register(world.user, key: "phone", token: "aaaa")
        let new = NewCheckin(
            userID: world.user.id, locationID: place.id, points: 12, source: "qr", transactionID: "T-1")
        let first = try world.checkin(new, at: at(10))
        #expect(first.created)
        #expect(first.checkin.isFirst)
        #expect(first.checkin.transactionID == "T-1")
        #expect(first.notification?.extras["f"] == 1)
        #expect(first.notification?.extras["i"]?.int64Value == first.checkin.id)
        #expect(first.notification?.extras["p"] == 12)
        #expect(first.notification?.event == "checkin")
        #expect(try world.deliveries(of: first.notification!).count == 1, "entry and job together")
        #expect(try world.reload(world.user).points == 12)
        #expect(first.totalPoints == 12)

        let again = try world.checkin(new, at: at(11))
        #expect(!again.created)
        #expect(again.checkin == first.checkin)
        #expect(again.notification?.id == first.notification?.id)
        #expect(try world.reload(world.user).points == 12, "one check-in, not two")
        #expect(try world.entries(of: world.user).count == 1)

        // The same transaction id for another user is no retry: a conflict, not Ann's check-in.
        var bobs = new
        bobs.userID = try world.addUser("bob@example.com").id
        let taken = #expect(throws: DomainError.self, "another user's transaction id was taken as a retry") {
            try world.checkin(bobs, at: at(11))
        }
        #expect(taken?.code == .conflict && taken?.field == "transaction_id")

        var unnamed = new
        unnamed.transactionID = nil
        let second = try world.checkin(unnamed, at: at(12))
        #expect(second.checkin.transactionID == "POS_\(world.user.id)_\(at(12).seconds)")
        #expect(!second.checkin.isFirst)
        let third = try world.checkin(unnamed, at: at(12))
        #expect(
            third.checkin.transactionID == "POS_\(world.user.id)_\(at(12).seconds)_2",
            "same second, still two check-ins")
        #expect(try store.read { try $0.checkins.find(userID: world.user.id, transactionID: "T-1") } == first.checkin)
        #expect(
            try store.read { try $0.checkins.find(businessID: world.business.id, id: first.checkin.id) }
                == first.checkin)

        var stranger = new
        stranger.userID = 9999
        stranger.transactionID = "T-2"
        #expect(throws: DomainError.notFound("user")) { try world.checkin(stranger, at: at(13)) }
        var nowhere = new
        nowhere.locationID = 9999
        nowhere.transactionID = "T-3"
        #expect(throws: DomainError.notFound("location")) { try world.checkin(nowhere, at: at(13)) }
    }

    @Test(arguments: StoreBackend.allCases)
    func pendingCheckinsEarnOnApprovalAndVoidsTakeBack(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let place = try world.location()
        let pending = try world.checkin(
            NewCheckin(
                userID: world.user.id, locationID: place.id, points: 30, source: "online_ordering",
                transactionID: "OO-1", status: .pending, event: .pendingCheckin),
            at: at(1))
        #expect(pending.checkin.status == .pending)
        #expect(pending.notification?.event == "pending_checkin")
        func points() throws -> Int64 { try world.reload(world.user).points }
        #expect(try points() == 0)
        let id = pending.checkin.id
        let approved = try world.change(id, from: [.pending], to: .approved, event: .checkinRetrySuccess, at: at(2))
        #expect(approved.checkin.status == .approved)
        #expect(approved.checkin.isFirst)
        #expect(approved.notification?.event == "checkin_retry_success")
        #expect(try points() == 30)
        // Asked again (the POS lost the answer): the same change, not a second one.
        let repeated = try world.change(id, from: [.pending], to: .approved, event: .checkinRetrySuccess, at: at(3))
        #expect(!repeated.created && repeated.notification?.id == approved.notification?.id)
        #expect(try points() == 30)
        #expect(throws: DomainError(.conflict, field: "status", "the check-in is approved")) {
            try world.change(id, from: [.pending], to: .failed, event: .checkinRetryFail, at: at(3))
        }
        _ = try world.change(id, from: [.approved], to: .void, event: .checkinVoid, at: at(4))
        #expect(try points() == 0)
        #expect(try world.store.read { try $0.checkins.find(businessID: world.business.id, id: id) }?.status == .void)
        let other = try world.store.transaction {
            try $0.businesses.insert(name: "Other", clientID: "c2", sealedSecret: [], posKeyHash: "p2", at: at(0))
        }
        #expect(throws: DomainError.notFound("check-in")) {
            try world.change(id, from: [.void], to: .approved, event: .checkin, at: at(5), business: other)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func pointsPastTheThresholdConvert(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let place = try world.location()
        /// Converts with `offer` (a reward) or, without one, into currency; then checks in `points` at `time`.
        func checkIn(_ points: Int64, at time: Int64, into offer: Offer?) throws -> CheckinResult {
            try world.settings {
                $0.conversionThreshold = 100
                $0.conversionKind = offer == nil ? "currency" : "reward"
                $0.conversionOfferID = offer?.id
                $0.conversionCurrencyAmount = Money(cents: 500)
            }
            return try world.checkin(
                NewCheckin(
                    userID: world.user.id, locationID: place.id, points: points, source: "qr", transactionID: "T\(time)"
                ),
                at: at(time))
        }
        func balance() throws -> User { try world.reload(world.user) }

        let result = try checkIn(250, at: 1, into: try world.offer())
        #expect(result.conversions.map(\.event) == ["points_to_reward", "points_to_reward"])
        #expect(try balance().points == 50)
        #expect(result.totalPoints == 50)
        #expect(try world.liveRewards(world.user, at: at(2)).count == 2)

        let more = try checkIn(60, at: 3, into: nil)
        #expect(more.conversions.map(\.event) == ["points_to_currency"])
        #expect(try balance().points == 10)
        #expect(try balance().bankedCurrency == Money(cents: 500))

        // A conversion offer that has expired turns no points into a reward born dead: they stay points.
        let lapsed = try world.offer(validFor: nil) { $0.expiresAt = at(4) }
        #expect(try checkIn(100, at: 5, into: lapsed).conversions.isEmpty)
        #expect(try balance().points == 110)

        // Nor into one whose window has closed: it could never be redeemed.
        let closed = try world.offer(validFor: 3600) { $0.availableUntil = at(4) }
        #expect(try checkIn(1, at: 6, into: closed).conversions.isEmpty)
        #expect(try balance().points == 111)
    }

    @Test(arguments: StoreBackend.allCases)
    func offersAreGrantedReadRedeemedOnce(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let store = world.store
        let place = try world.location()
        let fries = try world.offer(validFor: 3600, discount: Money(cents: 300))
        #expect(try store.read { try $0.offers.find(businessID: world.business.id, id: fries.id) } == fries)
        // Users who are not the business's are refused by id, and nothing is granted.
        #expect(throws: DomainError(.invalid, field: "user_ids", "unknown users: 9999")) {
            try world.grant(fries, to: [world.user.id, 9999], at: at(0))
        }
        #expect(try world.badge(world.user) == 0)
        let granted = try world.grant(fries, to: [world.user.id], at: at(0))
        #expect(granted.count == 1)
        let reward = granted[0].reward
        #expect(reward.expiresAt == at(3600))
        #expect(reward.notificationID == granted[0].notification?.id)
        #expect(try world.badge(world.user) == 1)

        // Reading the offer clears its entry from the badge.
        world.clock.set(at(1))
        let marks = try world.inbox.markRead(
            userID: world.user.id, entries: [], rewards: [reward.id, 4242], event: nil)
        #expect(marks.rewards == [reward.id])
        #expect(marks.badge == 0)
        #expect(try store.read { try $0.offers.reward(userID: world.user.id, id: reward.id) }?.reward.readAt == at(1))

        let coded = try world.code(reward.id, for: world.user, at: at(2))
        let code = try #require(coded.redemptionCode)
        #expect(code.count == 8 && code.allSatisfy { RedemptionCode.alphabet.contains($0) })
        #expect(try world.code(reward.id, for: world.user, at: at(3)).redemptionCode == code, "the code it has")
        let bob = try world.addUser("bob@example.com")
        #expect(throws: DomainError.notFound("reward")) { try world.code(reward.id, for: bob, at: at(3)) }

        let honored = try world.honor(code, at: place, transactionID: "T-9", at: at(4))
        #expect(honored.redemption.discount == Money(cents: 300))
        #expect(honored.redemption.rewardID == reward.id)
        #expect(honored.notification?.extras["rd"] == 3)
        #expect(
            try store.read { try $0.redemptions.all(businessID: world.business.id, transactionID: "T-9") }.map(\.id)
                == [honored.redemption.id])
        // The POS retries (its answer was lost): the same code in the same transaction is the same redemption.
        let retried = try world.honor(code, at: place, transactionID: "T-9", at: at(4))
        #expect(!retried.created && honored.created)
        #expect(retried.redemption.id == honored.redemption.id)
        #expect(retried.notification?.id == honored.notification?.id)
        let twice = #expect(throws: DomainError.self, "a code was honoured twice") {
            try world.honor(code, at: place, transactionID: nil, at: at(5))
        }
        #expect(twice?.code == .conflict)
        #expect(throws: DomainError.notFound("redemption code")) {
            try world.honor("NOPE", at: place, transactionID: nil, at: at(5))
        }
        #expect(try world.liveRewards(world.user, at: at(6)).isEmpty, "a redeemed reward is gone")
    }

    @Test(arguments: StoreBackend.allCases)
    func aCodeIsHonouredOnlyWithinItsOffersWindow(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let place = try world.location()
        let lunch = try world.offer(validFor: nil) { $0.availableUntil = at(50) }
        let reward = try world.grant(lunch, to: [world.user.id], at: at(0))[0].reward
        let code = try #require(try world.code(reward.id, for: world.user, at: at(10)).redemptionCode)
        let late = #expect(throws: DomainError.self, "a code was honoured after its offer's window closed") {
            try world.honor(code, at: place, transactionID: nil, at: at(60))
        }
        #expect(late?.code == .conflict && late?.field == "redemption_code")
        #expect(
            try world.store.read { try $0.offers.reward(userID: world.user.id, id: reward.id) }?.reward.redeemedAt
                == nil, "not spent")
        // Nor is a code issued once the window has closed.
        #expect(throws: DomainError(.invalid, field: "reward_id", "the offer is not available now")) {
            try world.code(reward.id, for: world.user, at: at(60))
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func expiredRewardsCanNotBeRedeemedAndRemindOnce(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let fries = try world.offer(validFor: 100)
        let reward = try world.grant(fries, to: [world.user.id], at: at(0))[0].reward
        func remind(before: Int64, at time: Int64) throws -> [InboxEntry] {
            world.clock.set(at(time))
            return try world.loyalty.sendExpiryReminders(
                business: world.business, expiringBefore: at(before), limit: 10)
        }
        #expect(try remind(before: 50, at: 10).isEmpty)
        #expect(try remind(before: 150, at: 60).map(\.event) == ["offer_expiry"])
        #expect(try remind(before: 150, at: 61).isEmpty, "never twice")
        #expect(throws: DomainError.self) { try world.code(reward.id, for: world.user, at: at(200)) }
        #expect(try world.liveRewards(world.user, at: at(200)).isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func aRetriedRedemptionIsOneRedemption(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let place = try world.location()
        // A POS transaction: a retry of a discount is one redemption and one notification; another discount on the
        // same ticket is a redemption of its own; the ticket is one guest's, so another user can't use its id.
        func redeem(_ cents: Int64, for user: User) throws -> RedemptionResult {
            world.clock.set(at(1))
            return try world.loyalty.recordDiscount(
                business: world.business, userID: user.id, locationID: place.id, discount: Money(cents: cents),
                transactionID: "POS-77")
        }
        let first = try redeem(400, for: world.user)
        let retry = try redeem(400, for: world.user)
        #expect(first.created && !retry.created)
        #expect(retry.redemption.id == first.redemption.id && retry.notification?.id == first.notification?.id)
        let other = try redeem(100, for: world.user)
        #expect(other.created)
        let carol = try world.addUser("carol@example.com")
        #expect(throws: DomainError(.conflict, field: "transaction_id", "is another user's transaction")) {
            try redeem(400, for: carol)
        }
        #expect(
            try world.store.read { try $0.redemptions.all(businessID: world.business.id, transactionID: "POS-77") }
                .map(\.id) == [first.redemption.id, other.redemption.id])
        // Nor check in with it.
        #expect(throws: DomainError(.conflict, field: "transaction_id", "is another user's transaction")) {
            try world.checkin(
                NewCheckin(userID: carol.id, locationID: place.id, points: 5, source: "pos", transactionID: "POS-77"),
                at: at(2))
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func directRedemptionsAndGiftCards(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let store = world.store
        let place = try world.location()
        world.clock.set(at(1))
        let redemption = try world.loyalty.recordDiscount(
            business: world.business, userID: world.user.id, locationID: place.id, discount: Money(cents: 250),
            transactionID: nil)
        #expect(redemption.redemption.discount == Money(cents: 250))
        #expect(redemption.notification?.extras["rd"] == 2.5)

        try world.register(world.user, key: "phone", token: "aaaa")
        func report(_ cents: Int64, for user: User, at time: Int64) throws -> (
            giftCard: GiftCard, notification: InboxEntry?
        ) {
            world.clock.set(at(time))
            return try world.loyalty.updateGiftCard(
                business: world.business, uuid: "card-1", userID: user.id, balance: Money(cents: cents))
        }
        let card = try report(2500, for: world.user, at: 2)
        #expect(card.giftCard.balance == Money(cents: 2500))
        #expect(card.notification?.visibleInInbox == false)
        #expect(card.notification?.pushStyle == .background)
        #expect(try world.deliveries(of: card.notification!).count == 1)
        let updated = try report(1250, for: world.user, at: 3)
        #expect(updated.giftCard.id == card.giftCard.id)
        #expect(
            try store.read { try $0.giftCards.find(businessID: world.business.id, uuid: "card-1") }?.balance
                == Money(cents: 1250))
        #expect(
            try store.read { try $0.giftCards.find(businessID: world.business.id, id: card.giftCard.id) }?.uuid
                == "card-1")
        #expect(
            try store.read { try $0.giftCards.find(businessID: world.business.id + 1, id: card.giftCard.id) } == nil)
        let bob = try world.addUser("bob@example.com")
        #expect(throws: DomainError(.conflict, field: "user_id", "the card belongs to another user")) {
            try report(100, for: bob, at: 4)
        }
        #expect(
            try store.read { try $0.giftCards.find(businessID: world.business.id, uuid: "card-1") }?.balance
                == Money(cents: 1250), "nothing written for the wrong user")
        #expect(try world.badge(world.user) == 1, "the silent push is not in the badge")
    }

    @Test(arguments: StoreBackend.allCases)
    func surveysAreSentAndAnsweredOnce(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let store = world.store
        let place = try world.location()
        let definition: JSON = [
            "title": "Visit", "questions": [["id": "q1", "text": "Good?", "type": "boolean", "required": true]],
        ]
        let survey = try store.transaction {
            try $0.surveys.insert(
                businessID: world.business.id, title: "Visit", definition: definition, url: nil, at: at(0))
        }
        #expect(
            try store.read { try $0.surveys.find(businessID: world.business.id, id: survey.id) }?.definition
                == definition)
        world.clock.set(at(1))
        #expect(throws: DomainError(.invalid, field: "user_ids", "unknown users: 777")) {
            try world.loyalty.sendSurvey(
                business: world.business, surveyID: survey.id, userIDs: [world.user.id, 777], locationID: place.id)
        }
        let sent = try world.loyalty.sendSurvey(
            business: world.business, surveyID: survey.id, userIDs: [world.user.id], locationID: place.id)
        #expect(sent.count == 1)
        let userSurvey = sent[0].userSurvey
        #expect(sent[0].notification?.extras["s"]?.int64Value == userSurvey.id)
        #expect(try store.read { try $0.surveys.userSurvey(id: userSurvey.id) }?.survey == survey)
        let bob = try world.addUser("bob@example.com")
        world.clock.set(at(2))
        let answered = try world.loyalty.submitSurvey(
            userID: world.user.id, userSurveyID: userSurvey.id, answers: ["q1": true])
        #expect(answered.answers == ["q1": true])
        #expect(answered.submittedAt == at(2))
        #expect(throws: SurveyRefusal(.answeredAlready)) {
            try world.loyalty.submitSurvey(userID: world.user.id, userSurveyID: userSurvey.id, answers: ["q1": false])
        }
        #expect(throws: DomainError.notFound("survey")) {
            try world.loyalty.submitSurvey(userID: bob.id, userSurveyID: userSurvey.id, answers: [:])
        }

        let withSurvey = try world.checkin(
            NewCheckin(
                userID: world.user.id, locationID: place.id, points: 5, source: "qr", transactionID: "S-1",
                surveyID: survey.id),
            at: at(4))
        #expect(withSurvey.checkin.userSurveyID != nil)
        #expect(withSurvey.notification?.extras["s"]?.int64Value == withSurvey.checkin.userSurveyID)
    }

    @Test(arguments: StoreBackend.allCases)
    func aDisabledEventWritesNoEntry(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let place = try world.location()
        var quiet = NotificationTemplate.default(for: .checkin)!
        quiet.enabled = false
        try world.store.transaction { try $0.templates.save(businessID: world.business.id, quiet, at: at(0)) }
        let result = try world.checkin(
            NewCheckin(userID: world.user.id, locationID: place.id, points: 5, source: "qr", transactionID: "Q"),
            at: at(1))
        #expect(result.notification == nil)
        #expect(result.checkin.notificationID == nil)
        #expect(try world.reload(world.user).points == 5)
    }
}
