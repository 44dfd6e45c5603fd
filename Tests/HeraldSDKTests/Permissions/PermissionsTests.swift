import HeraldModel
import Testing

@testable import HeraldSDK

/// Permissions read from the system and reported, asked for on the app's word; location allowed, geofencing starts by
/// itself: the stored list watched at launch, significant changes fed in, no fix from the app.
@Suite struct PermissionsTests {
    @Test func notificationPermissionIsAskedReadAndReported() async throws {
        let authorizer = FakeNotificationAuthorizer(.notDetermined, answer: .authorized)
        let harness = Harness(authorizer: authorizer)
        let client = await harness.start()
        #expect(harness.api.lastInstallFields?["permissions"]?["notifications"] == false)
        #expect(await client.requestNotificationPermission())
        #expect(authorizer.requests.current == [false])
        #expect(harness.api.updates.last?["permissions"]?["notifications"] == true)
        #expect(await client.notificationAuthorization() == .authorized)

        // Turned off in Settings: read again when the app comes back to the front, and reported.
        await client.appDidEnterBackground()
        authorizer.status.update { $0 = .denied }
        await client.appDidBecomeActive()
        #expect(harness.api.updates.last?["permissions"]?["notifications"] == false)
    }

    @Test func theFirstRegistrationCarriesWhatTheUserAllowedAlready() async {
        let harness = Harness(
            authorizer: FakeNotificationAuthorizer(.authorized), location: FakeLocationService(.whenInUse))
        _ = await harness.start()
        #expect(harness.api.lastInstallFields?["permissions"] == ["notifications": true, "location": "when_in_use"])
        #expect(harness.api.updates.isEmpty, "no update right after registering")
    }

    @Test func provisionalNotificationsAskNothingAndCountAsAllowed() async {
        let authorizer = FakeNotificationAuthorizer()
        let harness = Harness(authorizer: authorizer)
        let client = await harness.start()
        #expect(await client.requestNotificationPermission(provisional: true))
        #expect(authorizer.requests.current == [true])
        #expect(NotificationAuthorization.provisional.allowsNotifications)
        #expect(!NotificationAuthorization.denied.allowsNotifications)
        #expect(!NotificationAuthorization(rawValue: "something_new").allowsNotifications)
    }

    @Test func withoutAnAuthorizerNothingIsAsked() async {
        let harness = Harness()
        let client = await harness.start()
        #expect(await client.requestNotificationPermission() == false)
        #expect(await client.requestLocationPermission() == Permissions.Location.none)
        #expect(await client.notificationAuthorization() == nil)
    }

    @Test func locationIsAskedAsConfiguredAndGeofencingStartsWithoutAFixFromTheApp() async throws {
        let location = FakeLocationService(.none, answer: .always)
        let harness = GeofenceTrackerTests.harness(location: location)
        let client = await harness.start()
        #expect(location.starts.current == 0, "not allowed: not started")
        #expect(await client.requestLocationPermission() == .always)
        #expect(location.requests.current == [.always])
        #expect(harness.api.updates.last?["permissions"]?["location"] == "always")
        #expect(location.isUpdating)
        // A significant location change: the list is fetched and the system watches its regions.
        await location.report(GeofenceTrackerTests.fix(2000, at: harness.clock.time))
        #expect(harness.transport.lines.contains("GET /api/v1/geofences"))
        #expect(harness.monitor.last?.map(\.id).contains("g1") == true)
        // Entering: the crossing is posted and the visit's message shown.
        await location.report(GeofenceTrackerTests.fix(0, at: harness.clock.time.adding(.seconds(60))))
        #expect(harness.api.geofenceEventBodies.count == 1)
        #expect(harness.presenter.shownIDs == ["visit"])
    }

    @Test func atLaunchTheStoredGeofencesAreWatchedBeforeAnyFix() async throws {
        let location = FakeLocationService(.always)
        let harness = GeofenceTrackerTests.harness(location: location)
        var client = await harness.start()
        await location.report(GeofenceTrackerTests.fix(2000, at: harness.clock.time))
        let watched = try #require(harness.monitor.last)
        // The app is killed; the system relaunches it (a region crossed, or the user): no fix yet.
        harness.monitor.requests.update { $0 = [] }
        client = await harness.relaunch()
        #expect(harness.monitor.last == watched, "the stored list's regions, watched again at once")
        #expect(location.starts.current == 2)
        try await client.deleteMyData()
        #expect(location.stops.current == 1 && !location.isUpdating)
        #expect(harness.monitor.last == [])
    }

    @Test func anAppThatNeverUsesLocationIsNeverAsked() async {
        var options = HeraldConfiguration.Options()
        options.locationAuthorization = .none
        let location = FakeLocationService(.always)
        let harness = Harness(configuration: testConfiguration(options: options), location: location)
        let client = await harness.start()
        #expect(await client.requestLocationPermission() == Permissions.Location.none)
        #expect(location.requests.current.isEmpty && location.starts.current == 0)
    }
}
