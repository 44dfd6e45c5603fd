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
}
