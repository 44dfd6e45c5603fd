import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// FCM's quota per Firebase project as the nodes share it: stretches of the project's time leased one after another,
/// one per project whatever the business, and the operator's override of its size.
@Suite("Store conformance: FCM quotas")
struct FCMQuotaStoreTests {
    /// A business sending as `projectID` (nil: without an FCM credential).
    func business(_ world: StoreFixture, _ n: Int, projectID: String?) throws -> Int64 {
        try world.store.transaction { tx in
            let business = try tx.businesses.insert(
                name: "Business \(n)", clientID: "client-q\(n)", sealedSecret: [1], posKeyHash: "pos-q\(n)", at: at(0))
            if let projectID {
                try tx.credentials.save(
                    PushCredential(
                        businessID: business.id, platform: .fcm, settings: ["project_id": projectID], sealedKey: [2],
                        updatedAt: at(0)))
            }
            return business.id
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func leasesFollowOneAnother(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let first = try business(world, 1, projectID: "shared-app")
        let second = try business(world, 2, projectID: "shared-app")
        let other = try business(world, 3, projectID: "other-app")
        let none = try business(world, 4, projectID: nil)
        func lease(_ id: Int64, at now: Int64) throws -> FCMQuotaLease? {
            try world.store.leaseFCMQuota(businessID: id, duration: .seconds(1), at: at(now))
        }
        #expect(try lease(first, at: 0) == FCMQuotaLease(start: at(0), end: at(1), quotaPerMinute: nil))
        #expect(
            try lease(second, at: 0) == FCMQuotaLease(start: at(1), end: at(2), quotaPerMinute: nil),
            "the same project: the next second, whichever business (and node) asks")
        #expect(try lease(other, at: 0)?.start == at(0), "another project's time is its own")
        #expect(try lease(first, at: 10)?.start == at(10), "time nobody spent is not saved up")
        #expect(try lease(none, at: 10) == nil, "no FCM credential, no project")
    }

    @Test(arguments: StoreBackend.allCases)
    func theOperatorSetsAProjectsQuota(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let first = try business(world, 1, projectID: "shared-app")
        let second = try business(world, 2, projectID: "shared-app")
        try world.store.transaction { try $0.fcmQuotas.setQuotaPerMinute(1_200_000, projectID: "shared-app") }
        #expect(try world.store.read { try $0.fcmQuotas.quotaPerMinute(projectID: "shared-app") } == 1_200_000)
        #expect(try world.store.read { try $0.fcmQuotas.quotaPerMinute(projectID: "other-app") } == nil)
        let leased = try world.store.leaseFCMQuota(businessID: second, duration: .milliseconds(1_500), at: at(5))
        #expect(
            leased == FCMQuotaLease(start: at(5), end: at(5).adding(.milliseconds(1_500)), quotaPerMinute: 1_200_000))
        _ = try world.store.leaseFCMQuota(businessID: first, duration: .seconds(1), at: at(6))
        #expect(
            try world.store.read { try $0.fcmQuotas.quotaPerMinute(projectID: "shared-app") } == 1_200_000,
            "a lease keeps the override")
        try world.store.transaction { try $0.fcmQuotas.setQuotaPerMinute(nil, projectID: "shared-app") }
        #expect(
            try world.store.leaseFCMQuota(businessID: first, duration: .seconds(1), at: at(20))?.quotaPerMinute == nil)
    }
}
