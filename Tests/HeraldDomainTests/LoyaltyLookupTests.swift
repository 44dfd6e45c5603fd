import HeraldDomain
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

@Suite("Domain conformance: what a member's app and the POS ask of loyalty")
struct LoyaltyLookupTests {
    @Test func aCheckinAnnouncesItselfByStatusThenSource() {
        #expect(Checkin.event(status: .pending, source: "pos_scanner") == .pendingCheckin)
        #expect(Checkin.event(status: .approved, source: "pos_scanner") == .posScannerCheckin)
        #expect(Checkin.event(status: .approved, source: "qr") == .checkin)
    }

    @Test(arguments: StoreBackend.allCases)
    func onlyPendingOrFailedCheckinsAreRetriedAndOnlyApprovedOrPendingOnesVoided(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let place = try world.location()
        func checkin(_ transactionID: String, _ status: Checkin.Status, at time: Int64) throws -> Int64 {
            try world.checkin(
                NewCheckin(
                    userID: world.user.id, locationID: place.id, points: 10, source: "online_ordering",
                    transactionID: transactionID, status: status),
                at: at(time)
            ).checkin.id
        }
        func points() throws -> Int64 { try world.reload(world.user).points }

        let pending = try checkin("R-1", .pending, at: 1)
        world.clock.set(at(2))
        let failed = try world.loyalty.retryCheckin(business: world.business, id: pending, succeeded: false)
        #expect(failed.checkin.status == .failed)
        #expect(failed.notification?.event == "checkin_retry_fail")
        #expect(try points() == 0)
        let approved = try world.loyalty.retryCheckin(business: world.business, id: pending, succeeded: true)
        #expect(approved.checkin.status == .approved)
        #expect(approved.notification?.event == "checkin_retry_success")
        #expect(try points() == 10)
        #expect(throws: DomainError(.conflict, field: "status", "the check-in is approved")) {
            try world.loyalty.retryCheckin(business: world.business, id: pending, succeeded: false)
        }
        let voided = try world.loyalty.voidCheckin(business: world.business, id: pending)
        #expect(voided.checkin.status == .void)
        #expect(voided.notification?.event == "checkin_void")
        #expect(try points() == 0)

        let other = try checkin("R-2", .pending, at: 3)
        world.clock.set(at(4))
        #expect(try world.loyalty.voidCheckin(business: world.business, id: other).checkin.status == .void)
        #expect(throws: DomainError(.conflict, field: "status", "the check-in is void")) {
            try world.loyalty.retryCheckin(business: world.business, id: other, succeeded: true)
        }
        let refused = try checkin("R-3", .pending, at: 5)
        world.clock.set(at(6))
        _ = try world.loyalty.retryCheckin(business: world.business, id: refused, succeeded: false)
        #expect(throws: DomainError(.conflict, field: "status", "the check-in is failed")) {
            try world.loyalty.voidCheckin(business: world.business, id: refused)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func aTransactionShowsOnlyItsUsersOwnCheckinSurveyAndRedemptions(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let place = try world.location()
        let survey = try world.store.transaction {
            try $0.surveys.insert(
                businessID: world.business.id, title: "Visit",
                definition: ["title": "Visit", "questions": [["id": "q1", "text": "Good?", "type": "boolean"]]],
                url: nil, at: at(0))
        }
        let made = try world.checkin(
            NewCheckin(
                userID: world.user.id, locationID: place.id, points: 25, source: "qr", transactionID: "T-1",
                surveyID: survey.id),
            at: at(1))
        world.clock.set(at(2))
        let redeemed = try world.loyalty.recordDiscount(
            business: world.business, userID: world.user.id, locationID: place.id, discount: Money(cents: 300),
            transactionID: "T-1")

        let details = try world.loyalty.transaction(
            businessID: world.business.id, userID: world.user.id, transactionID: "T-1")
        #expect(details.checkin == made.checkin)
        #expect(details.location == place)
        #expect(details.survey?.userSurvey.id == made.checkin.userSurveyID)
        #expect(details.survey?.survey == survey)
        #expect(details.redemptions.map(\.id) == [redeemed.redemption.id])
        #expect(details.pointsBefore(balance: 25) == 0, "approved: the balance before its points")
        #expect(details.pointsBefore(balance: 10) == 0, "never below zero")

        let bob = try world.addUser("bob@example.com")
        #expect(throws: DomainError.notFound("transaction")) {
            try world.loyalty.transaction(businessID: world.business.id, userID: bob.id, transactionID: "T-1")
        }
        #expect(throws: DomainError.notFound("transaction")) {
            try world.loyalty.transaction(businessID: world.business.id, userID: world.user.id, transactionID: "T-9")
        }
        let pending = try world.checkin(
            NewCheckin(
                userID: world.user.id, locationID: place.id, points: 40, source: "online_ordering",
                transactionID: "T-2", status: .pending),
            at: at(3))
        let waiting = try world.loyalty.transaction(
            businessID: world.business.id, userID: world.user.id, transactionID: "T-2")
        #expect(waiting.checkin == pending.checkin)
        #expect(waiting.survey == nil && waiting.redemptions.isEmpty)
        #expect(waiting.pointsBefore(balance: 25) == 25, "not credited yet: the balance is the one before")
    }

    @Test(arguments: StoreBackend.allCases)
    func aGiftCardIsNamedByItsUUIDOrHeraldsIdAndOnlyItsOwnerSeesIt(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        world.clock.set(at(1))
        let card = try world.loyalty.updateGiftCard(
            business: world.business, uuid: "card-1", userID: world.user.id, balance: Money(cents: 1250)
        ).giftCard
        let businessID = world.business.id
        #expect(
            try world.loyalty.giftCard(businessID: businessID, userID: world.user.id, uuid: "card-1", id: nil) == card)
        #expect(
            try world.loyalty.giftCard(businessID: businessID, userID: world.user.id, uuid: "\(card.id)", id: card.id)
                == card)
        let bob = try world.addUser("bob@example.com")
        #expect(throws: DomainError.notFound("gift card")) {
            try world.loyalty.giftCard(businessID: businessID, userID: bob.id, uuid: "card-1", id: card.id)
        }
        #expect(throws: DomainError.notFound("gift card")) {
            try world.loyalty.giftCard(businessID: businessID, userID: world.user.id, uuid: "card-2", id: nil)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func surveyAnswersAreCheckedByTheValidatorAndKeptNormalised(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let definition: JSON = [
            "title": "Visit",
            "questions": [
                ["id": "q1", "text": "Good?", "type": "boolean", "required": true],
                ["id": "q2", "text": "Why?", "type": "open_ended"],
            ],
        ]
        func send(_ definition: JSON) throws -> UserSurvey {
            let user = world.user
            return try world.store.transaction { tx in
                let survey = try tx.surveys.insert(
                    businessID: user.businessID, title: "Visit", definition: definition, url: nil, at: at(0))
                return try tx.surveys.send(survey, to: user.id, locationID: nil, at: at(0))
            }
        }
        let sent = try send(definition)
        #expect(try world.loyalty.userSurvey(userID: world.user.id, id: sent.id).userSurvey == sent)
        #expect(try world.loyalty.userSurvey(id: sent.id)?.userSurvey == sent)
        #expect(try world.loyalty.userSurvey(id: sent.id + 100) == nil)
        let bob = try world.addUser("bob@example.com")
        #expect(throws: DomainError.notFound("survey")) { try world.loyalty.userSurvey(userID: bob.id, id: sent.id) }

        world.clock.set(at(1))
        let refusal = #expect(throws: SurveyRefusal.self) {
            try world.loyalty.submitSurvey(userID: world.user.id, userSurveyID: sent.id, answers: ["q2": "no"])
        }
        #expect(refusal?.code == .invalidAnswers)
        #expect(refusal?.problems.map(\.questionID) == ["q1"])
        #expect(refusal?.problems.map(\.code) == [.required])
        #expect(try world.loyalty.userSurvey(id: sent.id)?.userSurvey.submittedAt == nil, "nothing stored")

        let answered = try world.loyalty.submitSurvey(
            userID: world.user.id, userSurveyID: sent.id, answers: ["q2": "  Fast  ", "q1": true])
        #expect(answered.answers == ["q1": true, "q2": "Fast"])
        #expect(try world.loyalty.userSurvey(id: sent.id)?.userSurvey.answers == ["q1": true, "q2": "Fast"])
        #expect(throws: SurveyRefusal(.answeredAlready)) {
            try world.loyalty.submitSurvey(userID: world.user.id, userSurveyID: sent.id, answers: ["q1": true])
        }

        let broken = try send(["title": "Broken", "questions": "none"])
        #expect(throws: SurveyRefusal(.unreadableDefinition)) {
            try world.loyalty.submitSurvey(userID: world.user.id, userSurveyID: broken.id, answers: ["q1": true])
        }
    }
}
