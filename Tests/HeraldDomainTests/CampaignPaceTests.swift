import HeraldDomain
import HeraldModel
import HeraldDeliveryPorts
import HeraldStore
import HeraldTesting
import Synchronization
import Testing

@Suite("Domain conformance: a campaign report's pace")
struct CampaignPaceTests {
    /// Three pushes of a campaign queued (counted as they are written); the report asked at times the manual clock sets, with what the engine
    /// says paces the business.
    @Test(arguments: StoreBackend.allCases)
    func theRateIsTheLastMinutesAnswersAndTheFinishWhatWaitsAtIt(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let pacedBusinesses = Mutex<[Int64]>([])
        var options = DeviceEventService.Options()
        options.pacing = { business in
            pacedBusinesses.withLock { $0.append(business) }
            return .quota
        }
        let events = DeviceEventService(store: w.store, clock: w.world.clock.wallClock, options: options)
        let campaign = try w.campaign()
        for n in 1...3 {
            let device = try w.install("phone-\(n)", token: .some(apnsToken(n))).device
            try w.message(to: device, campaign: campaign)
        }
        func pace(at time: Timestamp) throws -> CampaignPace {
            w.world.clock.set(time)
            return try #require(try events.report(businessID: w.business.id, campaignID: campaign.id)?.pace)
        }

        // Nothing answered yet: no rate, no finish; the quota is what holds it.
        let waiting = try pace(at: at(100))
        #expect(waiting.ratePerSecond == 0 && waiting.waiting == 3)
        #expect(waiting.expectedFinishAt == nil && waiting.pacedBy == .quota)
        #expect(pacedBusinesses.withLock { $0 } == [w.business.id])

        // Two answered at 100 s, asked at 110 s: the periods from 60 s count, 2 over 50 s; 1 left at that rate.
        let claimed = try w.store.deliveryQueue.claim(
            owner: "test", limit: 10, leaseUntil: at(160), at: at(100))
        #expect(claimed.count == 3)
        try w.store.deliveryQueue.record(
            claimed.prefix(2).map {
                DeliveryCompletion(
                    id: $0.id, leaseOwner: "test", outcome: .delivered(providerMessageID: nil),
                    deviceID: $0.deviceID, token: $0.token, campaignID: campaign.id)
            }, at: at(100))
        let sending = try pace(at: at(110))
        #expect(sending.ratePerSecond == 0.04 && sending.waiting == 1)
        #expect(sending.expectedFinishAt == at(135))
        #expect(sending.json["expected_finish_at"] == .string(at(135).iso8601))
        #expect(sending.json["rate_per_second"] == .double(0.04))
        #expect(sending.json["paced_by"] == "quota")

        // A minute later those answers are no longer the pace.
        let stalled = try pace(at: at(170))
        #expect(stalled.ratePerSecond == 0 && stalled.waiting == 1 && stalled.expectedFinishAt == nil)

        // The last one fails for good: nothing waits, nothing paces it, whatever the engine says.
        try w.store.deliveryQueue.record(
            [
                DeliveryCompletion(
                    id: claimed[2].id, leaseOwner: "test", outcome: .failed(reason: "BadTopic"),
                    deviceID: claimed[2].deviceID, token: claimed[2].token, campaignID: campaign.id)
            ], at: at(171))
        let done = try pace(at: at(172))
        #expect(done.waiting == 0 && done.expectedFinishAt == nil && done.pacedBy == nil)
        #expect(done.ratePerSecond == 0.02, "1 answer over the 52 s from 120 s")
        #expect(pacedBusinesses.withLock { $0.count } == 3, "not asked once nothing waits")
    }

    /// A cancelled campaign sends nothing more: nothing waits.
    @Test(arguments: StoreBackend.allCases)
    func aCancelledCampaignHasNothingWaiting(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let campaign = try w.campaign()
        try w.store.transaction { tx in
            try tx.campaigns.count(.pushes, by: 10, campaignID: campaign.id)
            try tx.campaigns.count(.delivered, by: 4, campaignID: campaign.id)
        }
        #expect(try w.report(campaign).pace?.waiting == 6)
        let now = w.world.clock.now
        #expect(
            try w.store.transaction {
                try $0.campaigns.changeStatus(id: campaign.id, from: [.running], to: .cancelled, at: now)
            })
        #expect(try w.report(campaign).pace?.waiting == 0)
    }
}
