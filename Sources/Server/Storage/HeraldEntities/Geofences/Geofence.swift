import HeraldModel

/// A place a visit to which can trigger campaigns: a circle, or a polygon (with the circle around it kept for
/// finding it near a point).
public struct Geofence: Sendable, Equatable {
    /// A point on Earth.
    public struct Point: Sendable, Equatable {
        /// Degrees north.
        public var latitude: Double
        /// Degrees east.
        public var longitude: Double

        /// A point.
        public init(latitude: Double, longitude: Double) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// Store id.
    public var id: Int64
    /// Owning business.
    public var businessID: Int64
    /// Its name.
    public var name: String
    /// `circle` or `polygon`.
    public var shape: String
    /// The circle's center (a polygon's: the center of the circle around it).
    public var center: Point
    /// The circle's radius (a polygon's: the radius of the circle around it), in meters.
    public var radiusMeters: Double
    /// A polygon's corners, in order.
    public var polygon: [Point]?
    /// The location it is at, if any.
    public var locationID: Int64?
    /// When it was created.
    public var createdAt: Timestamp
    /// When it last changed.
    public var updatedAt: Timestamp

    /// A geofence record.
    public init(
        id: Int64, businessID: Int64, name: String, shape: String, center: Point, radiusMeters: Double,
        polygon: [Point]?, locationID: Int64?, createdAt: Timestamp, updatedAt: Timestamp
    ) {
        self.id = id
        self.businessID = businessID
        self.name = name
        self.shape = shape
        self.center = center
        self.radiusMeters = radiusMeters
        self.polygon = polygon
        self.locationID = locationID
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
