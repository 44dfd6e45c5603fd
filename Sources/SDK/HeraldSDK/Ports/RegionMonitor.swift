/// The operating system's region monitoring (CoreLocation on iOS): the SDK tells it which circles to watch; the
/// shell forwards the location fixes it gets back to `HeraldClient.locationDidUpdate(_:)`.
public protocol RegionMonitor: Sendable {
    /// Watches exactly `regions` from now on (at most 20 on iOS), replacing what was watched.
    func monitor(_ regions: [MonitoredRegion]) async
}

/// A circle for the operating system to watch.
public struct MonitoredRegion: Sendable, Hashable {
    /// The geofence's id, or `MonitoredRegion.refreshID` for the region whose exit makes the SDK fetch
    /// geofences again.
    public var id: String
    /// The circle's centre.
    public var center: Coordinate
    /// Its radius in metres.
    public var radiusMeters: Double

    /// A region.
    public init(id: String, center: Coordinate, radiusMeters: Double) {
        self.id = id
        self.center = center
        self.radiusMeters = radiusMeters
    }

    /// The id of the refresh region.
    public static let refreshID = "herald.refresh"

    /// True for the refresh region.
    public var isRefreshRegion: Bool { id == Self.refreshID }
}
