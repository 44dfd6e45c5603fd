import HeraldModel

/// Turns location fixes into geofence crossings, with hysteresis so a fix wobbling on the outline doesn't make a
/// string of enters and exits.
///
/// For each geofence, with `d` the fix's signed distance to its outline (negative inside) and `a` its accuracy:
/// - a fix less accurate than `maximumAccuracyMeters`, invalid, or older than the last one used is ignored;
/// - inside when `d ≤ −m`, with `m` the margin: `hysteresisMeters`, but at most half the geofence's size so a small
///   one can still be entered;
/// - outside when `d ≥ m + a`: leaving takes more certainty than entering, because a false exit followed by the
///   next enter would show the visit's notification twice;
/// - anything between keeps the state it had.
///
/// A geofence seen for the first time starts in the state the first fix shows: inside makes an `enter` (the app
/// started inside it), outside makes nothing.
public struct GeofenceStates: Sendable, Equatable {
    /// Inside or outside, per geofence id.
    public private(set) var inside: [String: Bool]
    /// When the last fix used was taken.
    public private(set) var lastFixTime: Timestamp?
    /// The margin crossings need, in metres.
    public var hysteresisMeters: Double
    /// Fixes less accurate than this are ignored, in metres.
    public var maximumAccuracyMeters: Double

    /// No state yet.
    public init(hysteresisMeters: Double = 20, maximumAccuracyMeters: Double = 250) {
        inside = [:]
        self.hysteresisMeters = hysteresisMeters
        self.maximumAccuracyMeters = maximumAccuracyMeters
    }

    /// The crossings `fix` shows for `geofences`, in their order; forgets geofences no longer listed.
    public mutating func update(with fix: LocationFix, geofences: [Geofence]) -> [GeofenceTransition] {
        guard fix.isValid, fix.accuracyMeters <= maximumAccuracyMeters else { return [] }
        if let lastFixTime, fix.timestamp < lastFixTime { return [] }
        lastFixTime = fix.timestamp
        let listed = Set(geofences.map(\.id))
        inside = inside.filter { listed.contains($0.key) }
        var transitions: [GeofenceTransition] = []
        for geofence in geofences {
            let distance = geofence.signedDistance(from: fix.coordinate)
            let margin = min(hysteresisMeters, Self.size(of: geofence) / 2)
            let was = inside[geofence.id]
            if distance <= -margin {
                if was != true {
                    inside[geofence.id] = true
                    transitions.append(GeofenceTransition(geofenceID: geofence.id, kind: .enter, fix: fix))
                }
            } else if distance >= margin + fix.accuracyMeters {
                if was == true {
                    transitions.append(GeofenceTransition(geofenceID: geofence.id, kind: .exit, fix: fix))
                }
                inside[geofence.id] = false
            }
        }
        return transitions
    }

    /// Restores saved states.
    init(inside: [String: Bool], lastFixTime: Timestamp?, hysteresisMeters: Double, maximumAccuracyMeters: Double) {
        self.inside = inside
        self.lastFixTime = lastFixTime
        self.hysteresisMeters = hysteresisMeters
        self.maximumAccuracyMeters = maximumAccuracyMeters
    }

    /// A geofence's size: a circle's radius, a polygon's bounding radius.
    private static func size(of geofence: Geofence) -> Double {
        geofence.boundingCircle.radiusMeters
    }
}
