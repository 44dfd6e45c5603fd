import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

@Suite("Store conformance: device-API records")
struct DeviceRecordsTests {
    private func business(_ store: Store, _ n: Int = 1) throws -> Business {
        try store.transaction {
            try $0.businesses.insert(
                name: "Business \(n)", clientID: "c\(n)", sealedSecret: [1], posKeyHash: "pos\(n)", at: at(0))
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func apiKeysAreFoundByHashAndSayWhichWorkspace(_ backend: StoreBackend) throws {
        let store = try backend.make()
        let burger = try business(store, 1)
        let taco = try business(store, 2)
        #expect(
            try store.transaction { try $0.businesses.setAPIKeys(id: burger.id, liveHash: "L1", sandboxHash: "S1") })
        #expect(
            try store.transaction { try $0.businesses.setAPIKeys(id: 999, liveHash: "L9", sandboxHash: nil) } == false)
        try store.read { tx throws in
            #expect(
                try tx.businesses.find(apiKeyHash: "L1").map { ($0.business.id, $0.workspace) } ?? (0, .live) == (
                    burger.id, .live
                ))
            #expect(try tx.businesses.find(apiKeyHash: "S1")?.workspace == .sandbox)
            #expect(try tx.businesses.find(apiKeyHash: "nope") == nil)
        }
        // nil keeps the key stored; a new one replaces it.
        try store.transaction { try $0.businesses.setAPIKeys(id: burger.id, liveHash: nil, sandboxHash: "S2") }
        try store.read { tx throws in
            #expect(try tx.businesses.find(apiKeyHash: "L1")?.business.id == burger.id)
            #expect(try tx.businesses.find(apiKeyHash: "S1") == nil)
            #expect(try tx.businesses.find(apiKeyHash: "S2")?.workspace == .sandbox)
        }
        // A key is one business's.
        let taken = #expect(throws: StoreError.self) {
            try store.transaction { try $0.businesses.setAPIKeys(id: taco.id, liveHash: "L1", sandboxHash: nil) }
        }
        #expect(taken?.code == .conflict && taken?.field == "api_key")
        #expect(try store.transaction { try $0.businesses.lock(id: taco.id) }?.id == taco.id)
    }

    @Test(arguments: StoreBackend.allCases)
    func testDevicesAreApprovedAndLapseByGuardedUpdates(_ backend: StoreBackend) throws {
        let store = try backend.make()
        let burger = try business(store)
        func install(_ key: String, _ workspace: Install.Workspace, code: String?) throws -> Device {
            try store.transaction { tx in
                var device = try tx.devices.findOrInsert(
                    businessID: burger.id, key: key, userID: nil, platform: .apns, at: at(0)
                ).device
                device.install = Install(
                    workspace: workspace, keyID: "key-\(key)", sealedSecret: [1],
                    testStatus: code.map { _ in "pending" },
                    approvalCode: code, lastSeenAt: at(0))
                try tx.devices.save(device)
                return device
            }
        }
        let tester = try install("tester", .sandbox, code: "AAAAAAAA")
        let live = try install("live", .live, code: nil)
        try store.transaction { tx in
            try tx.devices.approveTestDevice(id: tester.id, at: at(10))
            try tx.devices.approveTestDevice(id: live.id, at: at(10))
        }
        try store.read { tx throws in
            #expect(try tx.devices.find(id: tester.id)?.install?.testStatus == "approved")
            #expect(try tx.devices.find(id: tester.id)?.install?.lastSeenAt == at(10))
            #expect(try tx.devices.find(id: live.id)?.install?.testStatus == nil, "a live install is no test device")
            #expect(try tx.devices.find(businessID: burger.id, approvalCode: "AAAAAAAA")?.id == tester.id)
            #expect(try tx.devices.approvedTestDevices(businessID: burger.id, seenSince: at(10)) == 1)
            #expect(try tx.devices.approvedTestDevices(businessID: burger.id, seenSince: at(11)) == 0)
        }
        // Used since: nothing changes. Unused since: pending again, once.
        #expect(try store.transaction { try $0.devices.lapseTestDevice(id: tester.id, unusedSince: at(5)) } == false)
        #expect(try store.transaction { try $0.devices.lapseTestDevice(id: tester.id, unusedSince: at(20)) })
        #expect(try store.transaction { try $0.devices.lapseTestDevice(id: tester.id, unusedSince: at(20)) } == false)
        #expect(try store.read { try $0.devices.find(id: tester.id) }?.install?.testStatus == "pending")
        // Another install of the business showing the same code: the database refuses it.
        let twin = #expect(throws: StoreError.self) { try install("twin", .sandbox, code: "AAAAAAAA") }
        #expect(twin?.code == .conflict && twin?.field == "approval_code")
    }

    @Test(arguments: StoreBackend.allCases)
    func campaignMetricsAddUpAndTakeBack(_ backend: StoreBackend) throws {
        let store = try backend.make()
        let burger = try business(store)
        let campaign = try store.transaction { tx in
            try tx.campaigns.insert(
                Campaign(
                    id: 0, businessID: burger.id, name: "Spring", message: [:], audience: [:], channels: ["push"],
                    trigger: [:], limits: [:], sandbox: false, status: .running, createdAt: at(0), updatedAt: at(0)))
        }
        try store.transaction { tx in
            try tx.campaigns.count(.influencedOpens, campaignID: campaign.id)
            try tx.campaigns.count(.influencedOpens, campaignID: campaign.id)
            try tx.campaigns.count(.influencedOpens, by: -1, campaignID: campaign.id)
            try tx.campaigns.count(.directOpens, by: 0, campaignID: campaign.id)
        }
        let counters = try store.read { try $0.campaigns.counters(campaignID: campaign.id) }
        #expect(counters == ["influenced_opens": 1])
        #expect(CampaignMetric.report.count == 17 && Set(CampaignMetric.report).count == 17)
    }
}
