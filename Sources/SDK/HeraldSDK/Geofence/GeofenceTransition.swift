import HeraldModel

/// A crossing of a geofence's outline, as the SDK reports it in `POST /api/v1/geofence-events`.
public struct GeofenceTransition: Sendable, Hashable {
    /// The geofence crossed.
    public var geofenceID: String
    /// In or out.
    public var kind: Kind
    /// The fix that showed it.
    public var fix: LocationFix

    /// A crossing.
    public init(geofenceID: String, kind: Kind, fix: LocationFix) {
        self.geofenceID = geofenceID
        self.kind = kind
        self.fix = fix
    }

    /// The direction of a crossing.
    public enum Kind: String, Sendable, Hashable {
        /// From outside to inside.
        case enter
        /// From inside to outside.
        case exit
    }
}
