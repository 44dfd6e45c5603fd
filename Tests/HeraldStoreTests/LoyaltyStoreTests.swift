import HeraldModel
import HeraldStore
import Testing

/// Drafts every event as a plain entry titled with the event, so tests can see what was notified.
struct RecordingDrafter: NotificationDrafter {
    var disabled: Set<String> = []

    func draft(_ event: LoyaltyEvent, for user: User) -> NotificationDraft? {
        let (name, extras, style, visible): (String, JSON, PushStyle, Bool)
        switch event {
        case .checkin(let checkin, let event, _, _):
            (name, extras, style, visible) = (
                event.rawValue,
                LoyaltyPayload.checkin(
                    firstCheckin: checkin.isFirst, checkinID: checkin.id, points: checkin.points,
                    transactionID: checkin.transactionID,
                    userID: user.id, userSurveyID: checkin.userSurveyID), .alert, true
            )
        case .pointsConverted(_, let reward, _, _, _):
            (name, extras, style, visible) = (
                reward == nil ? "points_to_currency" : "points_to_reward", [:], .alert, true
            )
        case .rewardGranted(let reward, _, let event):
            (name, extras, style, visible) = (
                event.rawValue, LoyaltyPayload.reward(rewardID: reward.id, userID: user.id), .alert, true
            )
        case .offerExpiring(let reward, _):
            (name, extras, style, visible) = (
                "offer_expiry", LoyaltyPayload.reward(rewardID: reward.id, userID: user.id), .alert, true
            )
        case .redemption(let redemption, _, _):
            (name, extras, style, visible) = (
                "redemption", LoyaltyPayload.redemption(discount: redemption.discount, userID: user.id), .alert, true
            )
        case .giftCard(let card):
            (name, extras, style, visible) = ("gift_card", LoyaltyPayload.giftCard(id: card.id), .background, false)
        case .survey(let userSurvey, _, _, let visit):
            (name, extras, style, visible) = (
                "survey",
                LoyaltyPayload.survey(
                    firstCheckin: visit?.isFirst ?? false, points: visit?.points ?? 0, userID: user.id,
                    userSurveyID: userSurvey.id),
                .alert, true
            )
        }
        guard !disabled.contains(name) else { return nil }
        return NotificationDraft(
            businessID: user.businessID, userID: user.id, kind: .system, event: name, title: name, body: name,
            extras: extras,
            pushStyle: style, visibleInInbox: visible)
    }
}

@Suite("Store conformance: loyalty")
struct LoyaltyStoreTests {
    let drafter = RecordingDrafter()

    private func location(_ fixture: Fixture) throws -> Location {
        try fixture.store.createLocation(
            businessID: fixture.business.id, name: "Brooklyn Location", storeNumber: "7", at: at(0))
    }

    private func offer(_ fixture: Fixture, validFor: Int64? = 3600, discount: Double = 5) throws -> Offer {
        try fixture.store.createOffer(
            Offer(
                id: 0, businessID: fixture.business.id, name: "Free Fries", description: "Any size", imageURL: nil,
                media: nil,
                discount: discount, availableFrom: nil, availableUntil: nil, expiresAt: nil, validForSeconds: validFor,
                createdAt: at(0)),
            at: at(0))
    }

    @Test(arguments: StoreBackend.allCases)
    func checkinsCreditPointsOnceAndKnowTheFirst(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let store = fixture.store
        let place = try location(fixture)
        try fixture.register(fixture.user, key: "phone", token: "aaaa")
        let new = NewCheckin(
            businessID: fixture.business.id, userID: fixture.user.id, locationID: place.id, points: 12, source: "qr",
            transactionID: "T-1")
        let first = try store.recordCheckin(new, drafter: drafter, at: at(10))
        #expect(first.created)
        #expect(first.checkin.isFirst)
        #expect(first.checkin.transactionID == "T-1")
        #expect(first.notification?.extras["f"] == 1)
        #expect(first.notification?.extras["i"]?.int64Value == first.checkin.id)
        #expect(first.notification?.extras["p"] == 12)
        #expect(try store.deliveries(notificationID: first.notification!.id).count == 1, "entry and job together")
        #expect(try store.user(businessID: fixture.business.id, id: fixture.user.id)?.points == 12)

        let again = try store.recordCheckin(new, drafter: drafter, at: at(11))
        #expect(!again.created)
        #expect(again.checkin == first.checkin)
        #expect(again.notification?.id == first.notification?.id)
        #expect(
            try store.user(businessID: fixture.business.id, id: fixture.user.id)?.points == 12, "one check-in, not two")
        #expect(try store.notifications(userID: fixture.user.id, limit: 10, offset: 0).count == 1)

        // The same transaction id for another user is no retry: a conflict, not Ann's check-in.
        var bobs = new
        bobs.userID = try fixture.addUser("bob@example.com").id
        let taken = #expect(throws: StoreError.self, "another user's transaction id was taken as a retry") {
            try store.recordCheckin(bobs, drafter: drafter, at: at(11))
        }
        #expect(taken?.code == .conflict && taken?.field == "transaction_id")

        var unnamed = new
        unnamed.transactionID = nil
        let second = try store.recordCheckin(unnamed, drafter: drafter, at: at(12))
        #expect(second.checkin.transactionID == "POS_\(fixture.user.id)_\(at(12).seconds)")
        #expect(!second.checkin.isFirst)
        let third = try store.recordCheckin(unnamed, drafter: drafter, at: at(12))
        #expect(
            third.checkin.transactionID == "POS_\(fixture.user.id)_\(at(12).seconds)_2",
            "same second, still two check-ins")
        #expect(try store.checkin(userID: fixture.user.id, transactionID: "T-1") == first.checkin)
        #expect(try store.checkin(businessID: fixture.business.id, id: first.checkin.id) == first.checkin)

        var stranger = new
        stranger.userID = 9999
        stranger.transactionID = "T-2"
        #expect(throws: StoreError.self) { _ = try store.recordCheckin(stranger, drafter: drafter, at: at(13)) }
        var nowhere = new
        nowhere.locationID = 9999
        nowhere.transactionID = "T-3"
        #expect(throws: StoreError.self) { _ = try store.recordCheckin(nowhere, drafter: drafter, at: at(13)) }
    }

    @Test(arguments: StoreBackend.allCases)
    func pendingCheckinsEarnOnApprovalAndVoidsTakeBack(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let store = fixture.store
        let place = try location(fixture)
        let pending = try store.recordCheckin(
            NewCheckin(
                businessID: fixture.business.id, userID: fixture.user.id, locationID: place.id, points: 30,
                source: "online_ordering",
                transactionID: "OO-1", status: .pending, event: .pendingCheckin),
            drafter: drafter, at: at(1))
        #expect(pending.checkin.status == .pending)
        #expect(pending.notification?.event == "pending_checkin")
        func points() throws -> Int64 { try store.user(businessID: fixture.business.id, id: fixture.user.id)!.points }
        #expect(try points() == 0)
        let approved = try store.changeCheckin(
            businessID: fixture.business.id, id: pending.checkin.id, from: [.pending], to: .approved,
            event: .checkinRetrySuccess,
            drafter: drafter, at: at(2))
        #expect(approved.checkin.status == .approved)
        #expect(approved.checkin.isFirst)
        #expect(approved.notification?.event == "checkin_retry_success")
        #expect(try points() == 30)
        // Asked again (the POS lost the answer): the same change, not a second one.
        let repeated = try store.changeCheckin(
            businessID: fixture.business.id, id: pending.checkin.id, from: [.pending], to: .approved,
            event: .checkinRetrySuccess,
            drafter: drafter, at: at(3))
        #expect(!repeated.created && repeated.notification?.id == approved.notification?.id)
        #expect(try points() == 30)
        #expect(throws: StoreError(.conflict, field: "status", "the check-in is approved")) {
            try store.changeCheckin(
                businessID: fixture.business.id, id: pending.checkin.id, from: [.pending], to: .failed,
                event: .checkinRetryFail, drafter: drafter, at: at(3))
        }
        _ = try store.changeCheckin(
            businessID: fixture.business.id, id: pending.checkin.id, from: [.approved], to: .void, event: .checkinVoid,
            drafter: drafter, at: at(4))
        #expect(try points() == 0)
        #expect(try store.checkin(businessID: fixture.business.id, id: pending.checkin.id)?.status == .void)
        let other = try store.createBusiness(
            name: "Other", clientID: "c2", sealedSecret: [], posKeyHash: "p2", at: at(0))
        #expect(throws: StoreError.self) {
            _ = try store.changeCheckin(
                businessID: other.id, id: pending.checkin.id, from: [.void], to: .approved, event: .checkin,
                drafter: drafter, at: at(5))
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func pointsPastTheThresholdConvert(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let store = fixture.store
        let place = try location(fixture)
        var settings = BusinessSettings()
        settings.conversionThreshold = 100
        /// Converts with `offer` (a reward) or, without one, into currency; then checks in `points` at `time`.
        func checkIn(_ points: Int64, at time: Int64, into offer: Offer?) throws -> CheckinResult {
            settings.conversionKind = offer == nil ? "currency" : "reward"
            settings.conversionOfferID = offer?.id
            settings.conversionCurrencyAmount = 5
            try store.updateSettings(businessID: fixture.business.id, settings)
            return try store.recordCheckin(
                NewCheckin(
                    businessID: fixture.business.id, userID: fixture.user.id, locationID: place.id, points: points,
                    source: "qr", transactionID: "T\(time)"),
                drafter: drafter, at: at(time))
        }
        func balance() throws -> User { try store.user(businessID: fixture.business.id, id: fixture.user.id)! }

        let result = try checkIn(250, at: 1, into: try offer(fixture))
        #expect(result.conversions.map(\.event) == ["points_to_reward", "points_to_reward"])
        #expect(try balance().points == 50)
        #expect(try store.liveRewards(userID: fixture.user.id, at: at(2)).count == 2)

        let more = try checkIn(60, at: 3, into: nil)
        #expect(more.conversions.map(\.event) == ["points_to_currency"])
        #expect(try balance().points == 10)
        #expect(try balance().bankedCurrency == 5)

        // A conversion offer that has expired turns no points into a reward born dead: they stay points.
        var lapsed = try offer(fixture, validFor: nil)
        lapsed.expiresAt = at(4)
        #expect(try checkIn(100, at: 5, into: try store.createOffer(lapsed, at: at(0))).conversions.isEmpty)
        #expect(try balance().points == 110)

        // Nor into one whose window has closed: it could never be redeemed.
        var closed = try offer(fixture, validFor: 3600)
        closed.availableUntil = at(4)
        #expect(try checkIn(1, at: 6, into: try store.createOffer(closed, at: at(0))).conversions.isEmpty)
        #expect(try balance().points == 111)
    }

    @Test(arguments: StoreBackend.allCases)
    func offersAreGrantedReadRedeemedOnce(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let store = fixture.store
        let place = try location(fixture)
        let fries = try offer(fixture, validFor: 3600, discount: 3)
        #expect(try store.offer(businessID: fixture.business.id, id: fries.id) == fries)
        let granted = try store.grantOffer(
            businessID: fixture.business.id, offerID: fries.id, userIDs: [fixture.user.id, 9999],
            source: "campaign_offer",
            event: .campaignOffer, drafter: drafter, at: at(0))
        #expect(granted.count == 1, "unknown users are skipped")
        let reward = granted[0].reward
        #expect(reward.expiresAt == at(3600))
        #expect(reward.notificationID == granted[0].notification?.id)
        #expect(try store.unreadCount(userID: fixture.user.id) == 1)

        // Reading the offer clears its entry from the badge.
        #expect(try store.markRewardsRead(userID: fixture.user.id, ids: [reward.id, 4242], at: at(1)) == [reward.id])
        #expect(try store.unreadCount(userID: fixture.user.id) == 0)
        #expect(try store.reward(userID: fixture.user.id, id: reward.id)?.reward.readAt == at(1))

        let coded = try store.issueRedemptionCode(
            userID: fixture.user.id, rewardID: reward.id, code: "ABCD2345", at: at(2))
        #expect(coded.redemptionCode == "ABCD2345")
        #expect(
            try store.issueRedemptionCode(userID: fixture.user.id, rewardID: reward.id, code: "ZZZZ9999", at: at(3))
                .redemptionCode == "ABCD2345")
        let bob = try fixture.addUser("bob@example.com")
        #expect(throws: StoreError.self) {
            _ = try store.issueRedemptionCode(userID: bob.id, rewardID: reward.id, code: "X", at: at(3))
        }

        let honored = try store.honorRedemptionCode(
            businessID: fixture.business.id, code: "ABCD2345", locationID: place.id, transactionID: "T-9",
            drafter: drafter, at: at(4))
        #expect(honored.redemption.discount == 3)
        #expect(honored.redemption.rewardID == reward.id)
        #expect(honored.notification?.extras["rd"] == 3)
        #expect(
            try store.redemptions(businessID: fixture.business.id, transactionID: "T-9").map(\.id) == [
                honored.redemption.id
            ])
        // The POS retries (its answer was lost): the same code in the same transaction is the same redemption.
        let retried = try store.honorRedemptionCode(
            businessID: fixture.business.id, code: "ABCD2345", locationID: place.id, transactionID: "T-9",
            drafter: drafter, at: at(4))
        #expect(!retried.created && honored.created)
        #expect(retried.redemption.id == honored.redemption.id)
        #expect(retried.notification?.id == honored.notification?.id)
        let twice = #expect(throws: StoreError.self, "a code was honoured twice") {
            try store.honorRedemptionCode(
                businessID: fixture.business.id, code: "ABCD2345", locationID: place.id, transactionID: nil,
                drafter: drafter, at: at(5))
        }
        #expect(twice?.code == .conflict)
        #expect(throws: StoreError.self) {
            _ = try store.honorRedemptionCode(
                businessID: fixture.business.id, code: "NOPE", locationID: place.id, transactionID: nil,
                drafter: drafter, at: at(5))
        }
        #expect(try store.liveRewards(userID: fixture.user.id, at: at(6)).isEmpty, "a redeemed reward is gone")
    }

    @Test(arguments: StoreBackend.allCases)
    func aCodeIsHonouredOnlyWithinItsOffersWindow(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let store = fixture.store
        let place = try location(fixture)
        var lunch = try offer(fixture, validFor: nil)
        lunch.availableUntil = at(50)
        lunch = try store.createOffer(lunch, at: at(0))
        let reward = try store.grantOffer(
            businessID: fixture.business.id, offerID: lunch.id, userIDs: [fixture.user.id], source: "campaign_offer",
            event: .campaignOffer, drafter: drafter, at: at(0))[0].reward
        _ = try store.issueRedemptionCode(userID: fixture.user.id, rewardID: reward.id, code: "LUNCH123", at: at(10))
        let late = #expect(throws: StoreError.self, "a code was honoured after its offer's window closed") {
            try store.honorRedemptionCode(
                businessID: fixture.business.id, code: "LUNCH123", locationID: place.id, transactionID: nil,
                drafter: drafter, at: at(60))
        }
        #expect(late?.code == .conflict && late?.field == "redemption_code")
        #expect(try store.reward(userID: fixture.user.id, id: reward.id)?.reward.redeemedAt == nil, "not spent")
    }

    @Test(arguments: StoreBackend.allCases)
    func expiredRewardsCanNotBeRedeemedAndRemindOnce(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let store = fixture.store
        let fries = try offer(fixture, validFor: 100)
        let reward = try store.grantOffer(
            businessID: fixture.business.id, offerID: fries.id, userIDs: [fixture.user.id], source: "campaign_offer",
            event: .campaignOffer, drafter: drafter, at: at(0))[0].reward
        #expect(
            try store.sendExpiryReminders(
                businessID: fixture.business.id, expiringBefore: at(50), limit: 10, drafter: drafter, at: at(10)
            ).isEmpty)
        let reminders = try store.sendExpiryReminders(
            businessID: fixture.business.id, expiringBefore: at(150), limit: 10, drafter: drafter, at: at(60))
        #expect(reminders.map(\.event) == ["offer_expiry"])
        #expect(
            try store.sendExpiryReminders(
                businessID: fixture.business.id, expiringBefore: at(150), limit: 10, drafter: drafter, at: at(61)
            ).isEmpty,
            "never twice")
        #expect(throws: StoreError.self) {
            _ = try store.issueRedemptionCode(userID: fixture.user.id, rewardID: reward.id, code: "LATE", at: at(200))
        }
        #expect(try store.liveRewards(userID: fixture.user.id, at: at(200)).isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func aRetriedRedemptionIsOneRedemption(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let store = fixture.store
        let place = try location(fixture)
        // A POS transaction: a retry of a discount is one redemption and one notification; another discount on the
        // same ticket is a redemption of its own; the ticket is one guest's, so another user can't use its id.
        func redeem(_ discount: Double, for user: User) throws -> RedemptionResult {
            try store.createRedemption(
                businessID: fixture.business.id, userID: user.id, locationID: place.id, discount: discount,
                transactionID: "POS-77", drafter: drafter, at: at(1))
        }
        let first = try redeem(4, for: fixture.user)
        let retry = try redeem(4, for: fixture.user)
        #expect(first.created && !retry.created)
        #expect(retry.redemption.id == first.redemption.id && retry.notification?.id == first.notification?.id)
        let other = try redeem(1, for: fixture.user)
        #expect(other.created)
        let carol = try fixture.addUser("carol@example.com")
        #expect(throws: StoreError(.conflict, field: "transaction_id", "is another user's transaction")) {
            try redeem(4, for: carol)
        }
        #expect(
            try store.redemptions(businessID: fixture.business.id, transactionID: "POS-77").map(\.id) == [
                first.redemption.id, other.redemption.id,
            ])
        // Nor check in with it.
        #expect(throws: StoreError(.conflict, field: "transaction_id", "is another user's transaction")) {
            try store.recordCheckin(
                NewCheckin(
                    businessID: fixture.business.id, userID: carol.id, locationID: place.id, points: 5, source: "pos",
                    transactionID: "POS-77"),
                drafter: drafter, at: at(2))
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func directRedemptionsAndGiftCards(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let store = fixture.store
        let place = try location(fixture)
        let redemption = try store.createRedemption(
            businessID: fixture.business.id, userID: fixture.user.id, locationID: place.id, discount: 2.5,
            transactionID: nil,
            drafter: drafter, at: at(1))
        #expect(redemption.redemption.discount == 2.5)
        #expect(redemption.notification?.extras["rd"] == 2.5)

        try fixture.register(fixture.user, key: "phone", token: "aaaa")
        let card = try store.updateGiftCard(
            businessID: fixture.business.id, uuid: "card-1", userID: fixture.user.id, balance: 25, drafter: drafter,
            at: at(2))
        #expect(card.giftCard.balance == 25)
        #expect(card.notification?.visibleInInbox == false)
        #expect(card.notification?.pushStyle == .background)
        #expect(try store.deliveries(notificationID: card.notification!.id).count == 1)
        let updated = try store.updateGiftCard(
            businessID: fixture.business.id, uuid: "card-1", userID: fixture.user.id, balance: 12.5, drafter: drafter,
            at: at(3))
        #expect(updated.giftCard.id == card.giftCard.id)
        #expect(try store.giftCard(businessID: fixture.business.id, uuid: "card-1")?.balance == 12.5)
        #expect(try store.giftCard(businessID: fixture.business.id, id: card.giftCard.id)?.uuid == "card-1")
        #expect(try store.giftCard(businessID: fixture.business.id + 1, id: card.giftCard.id) == nil)
        let bob = try fixture.addUser("bob@example.com")
        #expect(throws: StoreError.self) {
            _ = try store.updateGiftCard(
                businessID: fixture.business.id, uuid: "card-1", userID: bob.id, balance: 1, drafter: drafter, at: at(4)
            )
        }
        #expect(try store.unreadCount(userID: fixture.user.id) == 1, "the silent push is not in the badge")
    }

    @Test(arguments: StoreBackend.allCases)
    func surveysAreSentAndAnsweredOnce(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let store = fixture.store
        let place = try location(fixture)
        let definition: JSON = [
            "title": "Visit", "questions": [["id": "q1", "text": "Good?", "type": "boolean", "required": true]],
        ]
        let survey = try store.createSurvey(
            businessID: fixture.business.id, title: "Visit", definition: definition, url: nil, at: at(0))
        #expect(try store.survey(businessID: fixture.business.id, id: survey.id)?.definition == definition)
        let sent = try store.sendSurvey(
            businessID: fixture.business.id, surveyID: survey.id, userIDs: [fixture.user.id, 777], locationID: place.id,
            drafter: drafter,
            at: at(1))
        #expect(sent.count == 1)
        let userSurvey = sent[0].userSurvey
        #expect(sent[0].notification?.extras["s"]?.int64Value == userSurvey.id)
        let bob = try fixture.addUser("bob@example.com")
        #expect(try store.userSurvey(userID: bob.id, id: userSurvey.id) == nil)
        #expect(try store.userSurvey(userID: fixture.user.id, id: userSurvey.id)?.survey == survey)
        let answered = try store.submitSurvey(
            userID: fixture.user.id, id: userSurvey.id, answers: ["q1": true], at: at(2))
        #expect(answered.answers == ["q1": true])
        #expect(throws: StoreError.self) {
            _ = try store.submitSurvey(userID: fixture.user.id, id: userSurvey.id, answers: ["q1": false], at: at(3))
        }
        #expect(throws: StoreError.self) {
            _ = try store.submitSurvey(userID: bob.id, id: userSurvey.id, answers: [:], at: at(3))
        }

        let withSurvey = try store.recordCheckin(
            NewCheckin(
                businessID: fixture.business.id, userID: fixture.user.id, locationID: place.id, points: 5, source: "qr",
                transactionID: "S-1", surveyID: survey.id),
            drafter: drafter, at: at(4))
        #expect(withSurvey.checkin.userSurveyID != nil)
        #expect(withSurvey.notification?.extras["s"]?.int64Value == withSurvey.checkin.userSurveyID)
    }

    @Test(arguments: StoreBackend.allCases)
    func aDisabledEventWritesNoEntry(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let place = try location(fixture)
        let quiet = RecordingDrafter(disabled: ["checkin"])
        let result = try fixture.store.recordCheckin(
            NewCheckin(
                businessID: fixture.business.id, userID: fixture.user.id, locationID: place.id, points: 5, source: "qr",
                transactionID: "Q"),
            drafter: quiet, at: at(1))
        #expect(result.notification == nil)
        #expect(result.checkin.notificationID == nil)
        #expect(try fixture.store.user(businessID: fixture.business.id, id: fixture.user.id)?.points == 5)
    }
}
