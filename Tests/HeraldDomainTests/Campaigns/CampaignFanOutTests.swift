import HeraldDomain
import HeraldModel
import HeraldDeliveryPorts
import HeraldStore
import HeraldTesting
import Testing

/// Campaigns from launch to the rows their fan-out writes, on every backend.
@Suite("Domain conformance: campaigns")
struct CampaignFanOutTests {
    /// A world with `count` live installs (tokens on even ones), each with its own user, in `zones`.
    func world(
        _ backend: StoreBackend, installs count: Int, zones: [String?] = [nil]
    ) throws -> (StoreFixture, [Device]) {
        let world = try StoreFixture(backend, start: Timestamp(iso8601: "2026-12-01T12:00:00Z")!)
        var devices: [Device] = []
        for index in 0..<count {
            let user = try world.addUser("u\(index)@example.com")
            var device = try world.register(
                user, key: "install-\(index)", token: index % 2 == 0 ? .some("token\(index)") : .some(nil))
            device.install = Install(
                workspace: .live, keyID: "key-\(index)", sealedSecret: [1], timeZone: zones[index % zones.count])
            try world.store.transaction { try $0.devices.save(device) }
            devices.append(device)
        }
        return (world, devices)
    }

    func campaigns(_ world: StoreFixture) -> (CampaignService, CampaignFanOut) {
        (
            CampaignService(store: world.store, clock: world.clock.wallClock),
            CampaignFanOut(
                store: world.store, notifications: world.notifications, clock: world.clock.wallClock, batchSize: 4)
        )
    }

    func spec(
        channels: [CampaignSpec.Channel] = [.push, .pull], trigger: CampaignSpec.Trigger = .now,
        limits: CampaignSpec.Limits = .init(), sandbox: Bool = false, audience: CampaignSpec.Audience = .all
    ) -> CampaignSpec {
        CampaignSpec(
            name: "Winter menu",
            message: .init(
                headline: "Soup's on", body: "Try the new tomato soup",
                media: MessageMedia(type: .image, url: "https://cdn.example.com/soup.jpg"),
                cta: CallToAction(label: "Order", url: "https://example.com/order")),
            audience: audience, channels: channels, trigger: trigger, limits: limits, sandbox: sandbox)
    }

    func run(_ fanOut: CampaignFanOut, _ id: Int64) throws -> [CampaignFanOut.Batch] {
        var batches: [CampaignFanOut.Batch] = []
        repeat { batches.append(try fanOut.step(campaign: id)) } while !batches.last!.finished && batches.count < 100
        return batches
    }

    @Test(arguments: StoreBackend.allCases)
    func aLaunchReachesEveryDeviceOnceInResumableBatches(_ backend: StoreBackend) throws {
        let (world, devices) = try world(backend, installs: 10)
        let (service, fanOut) = campaigns(world)
        let draft = try service.create(spec(), business: world.business)
        #expect(draft.status == .draft)
        #expect(try fanOut.step(campaign: draft.id).targeted == 0, "a draft sends nothing")
        _ = try service.launch(business: world.business, id: draft.id)
        // Two batches, then a "crash": a new fan-out (another process) resumes after the cursor.
        #expect(try fanOut.step(campaign: draft.id).targeted == 4)
        #expect(try fanOut.step(campaign: draft.id).targeted == 4)
        let resumed = CampaignFanOut(
            store: try backend.reopen(world.path), notifications: world.notifications, clock: world.clock.wallClock,
            batchSize: 4)
        let last = try resumed.step(campaign: draft.id)
        #expect(last.targeted == 2 && last.finished, "the last 2 of the 10 installs")
        #expect(try fanOut.step(campaign: draft.id).targeted == 0, "a completed campaign sends no more")
        let counters = try world.store.read { try $0.campaigns.counters(campaignID: draft.id) }
        #expect(counters["targeted"] == 10 && counters["sent"] == 10, "every install pulls; half have tokens too")
        for device in devices {
            let messages = try world.store.read {
                try $0.campaigns.messages(toDevice: device.id, since: Timestamp(milliseconds: 0))
            }
            #expect(messages.count == 1, "device \(device.deviceKey) messaged once")
        }
        let campaign = try world.store.read { try $0.campaigns.find(businessID: world.business.id, id: draft.id) }
        #expect(campaign?.status == .completed)
        // Pushes queued for the devices with tokens only; pulls for every install.
        let jobs = try world.store.deliveryQueue.claim(
            owner: "n", limit: 100, leaseUntil: world.clock.now.adding(.seconds(60)), at: world.clock.now)
        #expect(jobs.count == 5)
        let job = try #require(jobs.first)
        #expect(job.campaignMessage?["headline"] == "Soup's on")
        #expect(job.deviceBelongsToRecipient && job.deviceIsInstall && job.campaignStatus == "completed")
        let pulled = try world.store.transaction {
            try $0.inbox.pull(deviceID: devices[1].id, limit: 10, at: world.clock.now)
        }
        let message = pulled[0].deviceMessage(template: campaign?.message)
        #expect(message.id == String(pulled[0].id) && message.campaignID == String(draft.id))
        #expect(message.cta?.label == "Order" && message.media?.type == .image)
        #expect(
            try world.store.transaction { try $0.inbox.pull(deviceID: devices[1].id, limit: 10, at: world.clock.now) }
                .isEmpty)
    }

    /// When each device's message goes out: its entry's `created_at` (what pulls wait for and pushes are due at).
    func sendTimes(_ world: StoreFixture, _ devices: [Device]) throws -> [String] {
        try devices.map { device in
            try world.store.transaction {
                try $0.inbox.pull(deviceID: device.id, limit: 5, at: Timestamp(milliseconds: Int64.max / 2))
            }.map(\.createdAt.iso8601).joined(separator: ",")
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func aLocalTimeIsEachDevicesOwn(_ backend: StoreBackend) throws {
        let (world, devices) = try world(backend, installs: 2, zones: ["America/New_York", "Asia/Tokyo"])
        let (service, fanOut) = campaigns(world)
        let local = try service.create(
            spec(channels: [.push, .pull], trigger: .scheduled(at: nil, localTime: LocalTime("18:00"))),
            business: world.business)
        _ = try service.launch(business: world.business, id: local.id)
        _ = try run(fanOut, local.id)
        #expect(
            try world.store.transaction { try $0.inbox.pull(deviceID: devices[0].id, limit: 5, at: world.clock.now) }
                .isEmpty, "not yet")
        // 18:00 in New York is 23:00Z today; 18:00 in Tokyo (09:00Z) has passed: tomorrow 09:00Z.
        #expect(try sendTimes(world, devices) == ["2026-12-01T23:00:00Z", "2026-12-02T09:00:00Z"])
        let push = try world.store.deliveryQueue.claim(
            owner: "n", limit: 10, leaseUntil: Timestamp(iso8601: "2026-12-02T00:00:00Z")!,
            at: Timestamp(iso8601: "2026-12-01T23:00:00Z")!)
        #expect(push.map(\.deviceID) == [devices[0].id], "New York's push is due at its 18:00, Tokyo's not yet")
    }

    @Test(arguments: StoreBackend.allCases)
    func throttlesSpaceAndQuietHoursHold(_ backend: StoreBackend) throws {
        let (world, devices) = try world(backend, installs: 4)
        let (service, fanOut) = campaigns(world)
        let throttled = try service.create(
            spec(channels: [.pull], limits: .init(throttlePerMinute: 2)), business: world.business)
        _ = try service.launch(business: world.business, id: throttled.id)
        _ = try run(fanOut, throttled.id)
        #expect(
            try sendTimes(world, devices) == [
                "2026-12-01T12:00:00Z", "2026-12-01T12:00:00Z", "2026-12-01T12:01:00Z", "2026-12-01T12:01:00Z",
            ])
        // Quiet 11:00–13:00 in the devices' zone (UTC here): held until 13:00, not dropped.
        let quiet = try service.create(
            spec(channels: [.pull], limits: .init(quietHours: (LocalTime("11:00")!, LocalTime("13:00")!))),
            business: world.business)
        _ = try service.launch(business: world.business, id: quiet.id)
        _ = try run(fanOut, quiet.id)
        #expect(try sendTimes(world, devices) == Array(repeating: "2026-12-01T13:00:00Z", count: 4))
    }

    @Test(arguments: StoreBackend.allCases)
    func aFrequencyCapCountsEveryCampaign(_ backend: StoreBackend) throws {
        let (world, devices) = try world(backend, installs: 2)
        let (service, fanOut) = campaigns(world)
        for _ in 0..<2 {
            let campaign = try service.create(spec(channels: [.pull]), business: world.business)
            _ = try service.launch(business: world.business, id: campaign.id)
            _ = try run(fanOut, campaign.id)
        }
        let capped = try service.create(
            spec(channels: [.pull], limits: .init(frequencyCap: (count: 2, periodHours: 24))), business: world.business)
        _ = try service.launch(business: world.business, id: capped.id)
        let batches = try run(fanOut, capped.id)
        #expect(batches.map(\.capped).reduce(0, +) == 2, "both installs had two campaign messages today")
        #expect(try world.store.read { try $0.campaigns.counters(campaignID: capped.id) }["capped"] == 2)
        #expect(try sendTimes(world, devices).allSatisfy { $0.split(separator: ",").count == 2 })
    }

    @Test(arguments: StoreBackend.allCases)
    func pausedResumesWhereItStoppedAndCancelledSendsNoMore(_ backend: StoreBackend) throws {
        let (world, _) = try world(backend, installs: 10)
        let (service, fanOut) = campaigns(world)
        let campaign = try service.create(spec(channels: [.push]), business: world.business)
        _ = try service.launch(business: world.business, id: campaign.id)
        #expect(try fanOut.step(campaign: campaign.id).targeted == 4)
        #expect(try service.pause(business: world.business, id: campaign.id).status == .paused)
        #expect(try fanOut.step(campaign: campaign.id).targeted == 0, "paused")
        // Its queued pushes wait rather than go out.
        let held = try world.store.deliveryQueue.claim(
            owner: "n", limit: 10, leaseUntil: world.clock.now.adding(.seconds(60)), at: world.clock.now)
        #expect(held.allSatisfy { $0.campaignStatus == "paused" })
        _ = try world.store.deliveryQueue.handBack(owner: "n", at: world.clock.now)
        #expect(try service.launch(business: world.business, id: campaign.id).status == .running)
        #expect(try fanOut.step(campaign: campaign.id).targeted == 4, "resumed after the cursor")
        #expect(try service.cancel(business: world.business, id: campaign.id).status == .cancelled)
        #expect(try fanOut.step(campaign: campaign.id).targeted == 0)
        #expect(throws: DomainError(.conflict, field: "status", "the campaign is cancelled")) {
            try service.launch(business: world.business, id: campaign.id)
        }
        #expect(try world.store.read { try $0.campaigns.counters(campaignID: campaign.id) }["targeted"] == 8)
    }

    @Test(arguments: StoreBackend.allCases)
    func aSegmentCampaignReachesTheDevicesItsFilterMatchesAsItWasAtCreation(_ backend: StoreBackend) throws {
        let (world, devices) = try world(backend, installs: 6)
        try world.store.transaction { tx in
            for (index, device) in devices.enumerated() {
                var user = try tx.users.find(businessID: world.business.id, id: device.userID!)!
                user.attributes = .object([("tier", .string(index % 3 == 0 ? "gold" : "silver"))])
                try tx.users.saveImported(user)
            }
        }
        let gold = try SegmentFilter(json: ["attribute": "tier", "op": "eq", "value": "gold"])
        let segment = try world.store.transaction {
            try $0.segments.insert(businessID: world.business.id, name: "Gold", filter: gold, at: world.clock.now)
        }
        let (service, fanOut) = campaigns(world)
        let draft = try service.create(spec(audience: .segment(segment.id)), business: world.business)
        // The segment goes before the launch: the campaign sends to what it matched when the campaign was made.
        _ = try world.store.transaction { try $0.segments.delete(businessID: world.business.id, id: segment.id) }
        _ = try service.launch(business: world.business, id: draft.id)
        _ = try run(fanOut, draft.id)
        let counters = try world.store.read { try $0.campaigns.counters(campaignID: draft.id) }
        #expect(counters["targeted"] == 2, "devices 0 and 3 are gold")
        for (index, device) in devices.enumerated() {
            let messages = try world.store.read {
                try $0.campaigns.messages(toDevice: device.id, since: Timestamp(milliseconds: 0))
            }
            #expect(messages.count == (index % 3 == 0 ? 1 : 0), "device \(index)")
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func whatACampaignNamesMustBeTheBusinesss(_ backend: StoreBackend) throws {
        let (world, _) = try world(backend, installs: 0)
        let (service, _) = campaigns(world)
        var survey = spec()
        survey.message.surveyID = 999
        #expect(throws: DomainError(.notFound, field: "message.survey_id", "survey not found")) {
            try service.create(survey, business: world.business)
        }
        #expect(throws: DomainError(.notFound, field: "audience.segment_id", "segment not found")) {
            try service.create(spec(audience: .segment(5)), business: world.business)
        }
        #expect(throws: DomainError(.invalid, field: "audience.user_ids", "user 999 not found")) {
            try service.create(spec(audience: .userIDs([999])), business: world.business)
        }
        #expect(throws: DomainError(.invalid, field: "trigger.geofence_ids", "geofence 4 not found")) {
            try service.create(spec(trigger: .geofence(ids: [4], event: "enter")), business: world.business)
        }
        #expect(throws: DomainError.notFound("campaign")) { try service.launch(business: world.business, id: 77) }
    }

    @Test(arguments: StoreBackend.allCases)
    func aSandboxCampaignReachesApprovedTestDevicesOnly(_ backend: StoreBackend) throws {
        let (world, devices) = try world(backend, installs: 3)
        for (index, status) in ["approved", "pending"].enumerated() {
            var device = devices[index]
            device.install?.workspace = .sandbox
            device.install?.testStatus = status
            device.install?.lastSeenAt = world.clock.now
            try world.store.transaction { try $0.devices.save(device) }
        }
        let (service, fanOut) = campaigns(world)
        let sandbox = try service.create(spec(channels: [.pull], sandbox: true), business: world.business)
        _ = try service.launch(business: world.business, id: sandbox.id)
        let batches = try run(fanOut, sandbox.id)
        #expect(batches.map(\.targeted).reduce(0, +) == 1)
        let pulled = try world.store.transaction {
            try $0.inbox.pull(deviceID: devices[0].id, limit: 5, at: world.clock.now)
        }
        let campaign = try world.store.read { try $0.campaigns.find(businessID: world.business.id, id: sandbox.id) }
        let entry = try #require(pulled.first)
        let message = entry.deviceMessage(template: campaign?.message)
        #expect(message.headline == "Sandbox · Soup's on" && message.isSandbox)
        // A live campaign does not reach sandbox installs.
        let live = try service.create(spec(channels: [.pull]), business: world.business)
        _ = try service.launch(business: world.business, id: live.id)
        #expect(try run(fanOut, live.id).map(\.targeted).reduce(0, +) == 1, "the one live install")
    }
}
