import HeraldDomain
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

@Suite("Domain conformance: the geofences a device watches")
struct GeofenceServiceTests {
    @Test(arguments: StoreBackend.allCases)
    func aDeviceWatchesTheGeofencesItsWorkspacesRunningCampaignsAreTriggeredBy(_ backend: StoreBackend) throws {
        let world = try DeviceWorld(backend)
        let geofences = GeofenceService(
            store: world.store, notifications: world.world.notifications, clock: world.world.clock.wallClock)
        let here = Geofence.Point(latitude: 40.6782, longitude: -73.9442)
        let shop = try geofences.create(
            business: world.business, name: "Shop", shape: .circle(center: here, radiusMeters: 200), locationID: nil)
        let business = world.business
        let now = world.world.clock.now
        try world.store.transaction { tx in
            _ = try tx.campaigns.insert(
                Campaign(
                    id: 0, businessID: business.id, name: "Walk in", message: ["headline": "Hi", "body": "Hello"],
                    audience: ["all": true], channels: ["push", "pull"],
                    trigger: ["type": "geofence", "geofence_ids": [.int(shop.id)], "event": "enter"], limits: [:],
                    sandbox: false, status: .running, createdAt: now, updatedAt: now))
        }
        let live = try world.install("live-1").device
        let found = try geofences.near(device: live, point: here)
        #expect(found.geofences.map(\.geofence.id) == [shop.id])
        #expect(found.geofences.first?.triggers == ["enter"])
        #expect(found.geofences.first?.distance == 0, "inside")

        // A sandbox install watches what the business's sandbox campaigns are triggered by: none here.
        let sandbox = try world.install("sandbox-1", workspace: .sandbox).device
        #expect(try geofences.near(device: sandbox, point: here).geofences.isEmpty)

        var stranger = live
        stranger.businessID = business.id + 100
        #expect(throws: DomainError.notFound("business")) { try geofences.near(device: stranger, point: here) }
    }
}
