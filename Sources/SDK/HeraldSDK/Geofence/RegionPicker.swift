/// Chooses the regions the operating system watches: iOS watches at most 20 per app, so the nearest geofences by
/// distance to their edge (19) and one refresh region around the device, whose exit makes the SDK fetch the
/// list again for where it is now.
///
/// ```swift
/// let regions = RegionPicker().pick(geofences, around: fix.coordinate, refreshRadiusMeters: 1000)
/// await monitor.monitor(regions)  // ≤ 20 circles
/// ```
public struct RegionPicker: Sendable {
    /// The most regions watched, the refresh region included.
    public var maximumRegions: Int
    /// The smallest radius handed to the system (iOS is unreliable below about 100 m).
    public var minimumRadiusMeters: Double

    /// A picker for `maximumRegions` regions (20 on iOS).
    public init(maximumRegions: Int = 20, minimumRadiusMeters: Double = 100) {
        self.maximumRegions = maximumRegions
        self.minimumRadiusMeters = minimumRadiusMeters
    }

    /// The nearest `maximumRegions − 1` geofences by edge distance (ties by id), each as its bounding circle, then
    /// the refresh region: centred on `point`, with `refreshRadiusMeters`, but no farther than the edge of the
    /// nearest geofence left out (so the list is fetched again before the device reaches it).
    public func pick(_ geofences: [Geofence], around point: Coordinate, refreshRadiusMeters: Double)
        -> [MonitoredRegion]
    {
        guard maximumRegions > 0 else { return [] }
        let ranked =
            geofences
            .map { (geofence: $0, distance: max(0, $0.signedDistance(from: point))) }
            .sorted { $0.distance == $1.distance ? $0.geofence.id < $1.geofence.id : $0.distance < $1.distance }
        let chosen = ranked.prefix(maximumRegions - 1)
        var regions = chosen.map { item -> MonitoredRegion in
            let circle = item.geofence.boundingCircle
            return MonitoredRegion(
                id: item.geofence.id, center: circle.center, radiusMeters: max(minimumRadiusMeters, circle.radiusMeters)
            )
        }
        var refresh = refreshRadiusMeters
        if ranked.count > chosen.count, let nearestLeftOut = ranked.dropFirst(chosen.count).first {
            refresh = min(refresh, nearestLeftOut.distance)
        }
        regions.append(
            MonitoredRegion(
                id: MonitoredRegion.refreshID, center: point, radiusMeters: max(minimumRadiusMeters, refresh)))
        return regions
    }
}
