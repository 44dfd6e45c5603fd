/// The system's location service (CoreLocation on iOS), beside `RegionMonitor`: its permission, and the fixes that
/// keep geofences current without the app feeding any — significant location changes, and a fix whenever a watched
/// region is crossed.
public protocol LocationService: Sendable {
    /// What the user allows now (`none` when not asked yet or refused).
    func authorization() async -> Permissions.Location
    /// Asks for `level` (the system's prompt; `always` may first be granted as when-in-use and asked again by iOS
    /// later); answers what the user allows afterwards.
    func requestAuthorization(_ level: Permissions.Location) async -> Permissions.Location
    /// Starts significant location changes and asks for one fix now; every fix from then on is handed to `deliver`.
    func startUpdates(_ deliver: @escaping @Sendable (LocationFix) async -> Void) async
    /// Stops what `startUpdates` started (deleteMyData).
    func stopUpdates() async
}
