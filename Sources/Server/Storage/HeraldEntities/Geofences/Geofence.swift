import HeraldModel

/// A place a visit to which can trigger campaigns: a circle, or a polygon (with the circle around it kept for
/// finding it near a point).
package struct Geofence: Sendable, Equatable {
    /// A point on Earth.
    package struct Point: Sendable, Equatable {
        /// Degrees north.
        package var latitude: Double
        /// Degrees east.
        package var longitude: Double

        /// A point.
        package init(latitude: Double, longitude: Double) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// Store id.
    package var id: Int64
    /// Owning business.
    package var businessID: Int64
    /// Its name.
    package var name: String
    /// `circle` or `polygon`.
    package var shape: String
    /// The circle's center (a polygon's: the center of the circle around it).
    package var center: Point
    /// The circle's radius (a polygon's: the radius of the circle around it), in meters.
    package var radiusMeters: Double
    /// A polygon's corners, in order.
    package var polygon: [Point]?
    /// The location it is at, if any.
    package var locationID: Int64?
    /// When it was created.
    package var createdAt: Timestamp
    /// When it last changed.
    package var updatedAt: Timestamp

    /// A geofence record.
    package init(
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
