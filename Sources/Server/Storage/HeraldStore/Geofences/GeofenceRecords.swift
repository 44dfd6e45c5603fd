import HeraldModel

/// Geofences.
package struct GeofenceRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    static let columns = """
        id, business_id, name, shape, center_latitude, center_longitude, radius_meters, polygon, location_id, \
        created_at, updated_at
        """

    static func decode(_ row: SQLRow) -> Geofence {
        Geofence(
            id: row.int(0), businessID: row.int(1), name: row.text(2), shape: row.text(3),
            center: Geofence.Point(latitude: row.double(4), longitude: row.double(5)), radiusMeters: row.double(6),
            polygon: row.optionalText(7).map { text in
                (Columns.json(text).arrayValue ?? []).compactMap { point in
                    guard let latitude = point["latitude"]?.doubleValue, let longitude = point["longitude"]?.doubleValue
                    else { return nil }
                    return Geofence.Point(latitude: latitude, longitude: longitude)
                }
            },
            locationID: row.optionalInt(8), createdAt: row.timestamp(9), updatedAt: row.timestamp(10))
    }

    /// Creates a geofence (its id is the store's).
    package func insert(_ geofence: Geofence) throws -> Geofence {
        let polygon = geofence.polygon.map { points in
            JSON.array(
                points.map { .object([("latitude", .double($0.latitude)), ("longitude", .double($0.longitude))]) }
            ).encodedString
        }
        return Self.decode(
            try tx.connection.row(
                """
                INSERT INTO geofences (business_id, name, shape, center_latitude, center_longitude, radius_meters, polygon,
                    location_id, created_at, updated_at)
                VALUES (\(geofence.businessID), \(geofence.name), \(geofence.shape), \(geofence.center.latitude),
                    \(geofence.center.longitude), \(geofence.radiusMeters), \(polygon), \(geofence.locationID),
                    \(geofence.createdAt), \(geofence.updatedAt))
                RETURNING \(raw: Self.columns)
                """)!)
    }

    /// The geofence `id` of `businessID`.
    package func find(businessID: Int64, id: Int64) throws -> Geofence? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM geofences WHERE id = \(id) AND business_id = \(businessID)"
        ).map(Self.decode)
    }

    /// The geofences of `businessID` whose centers lie in a latitude/longitude box, at most `limit`.
    package func within(
        businessID: Int64, latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>, limit: Int
    ) throws -> [Geofence] {
        try tx.connection.rows(
            """
            SELECT \(raw: Self.columns) FROM geofences
            WHERE business_id = \(businessID)
              AND center_latitude BETWEEN \(latitudes.lowerBound) AND \(latitudes.upperBound)
              AND center_longitude BETWEEN \(longitudes.lowerBound) AND \(longitudes.upperBound)
            ORDER BY id LIMIT \(max(0, limit))
            """
        ).map(Self.decode)
    }

    /// A business's geofences, by id.
    package func all(businessID: Int64, limit: Int, offset: Int) throws -> [Geofence] {
        try tx.connection.rows(
            """
            SELECT \(raw: Self.columns) FROM geofences WHERE business_id = \(businessID)
            ORDER BY id LIMIT \(max(0, limit)) OFFSET \(max(0, offset))
            """
        ).map(Self.decode)
    }

    /// The ids of `businessID`'s geofences drawn around `locationID`.
    package func ids(businessID: Int64, locationID: Int64) throws -> [Int64] {
        try tx.connection.rows(
            "SELECT id FROM geofences WHERE business_id = \(businessID) AND location_id = \(locationID) ORDER BY id"
        ).map { $0.int(0) }
    }

    /// Deletes a geofence; false when it was not the business's.
    package func delete(businessID: Int64, id: Int64) throws -> Bool {
        try tx.connection.execute("DELETE FROM geofences WHERE id = \(id) AND business_id = \(businessID)") == 1
    }
}
