import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// What the admin API accepts for a geofence.
enum GeofenceInput {
    /// A point `{latitude, longitude}` checked; nil (with an error on `field`) otherwise.
    static func point(_ value: JSON?, _ field: String, _ errors: inout FieldErrors) -> Geofence.Point? {
        guard let latitude = value?["latitude"]?.doubleValue, let longitude = value?["longitude"]?.doubleValue,
            latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...180).contains(longitude)
        else {
            errors.add(field, "must be {latitude (-90 to 90), longitude (-180 to 180)}")
            return nil
        }
        return Geofence.Point(latitude: latitude, longitude: longitude)
    }

    static func geofence(_ body: JSON) throws -> (String, GeofenceService.Shape, Int64?) {
        var errors = FieldErrors()
        errors.refuseUnknown(
            body, known: ["name", "shape", "center", "radius_meters", "polygon", "location_id"], prefix: "")
        let name = AdminInput.requiredString(body, "name", max: 200, &errors)
        var shape: GeofenceService.Shape?
        switch body["shape"]?.stringValue {
        case "circle":
            let center = point(body["center"], "center", &errors)
            let radius = body["radius_meters"]?.doubleValue
            if radius.map({ !$0.isFinite || !(10...100_000).contains($0) }) ?? true {
                errors.add("radius_meters", "must be a number of meters from 10 to 100000")
            }
            if let center, let radius { shape = .circle(center: center, radiusMeters: radius) }
        case "polygon":
            guard let items = body["polygon"]?.arrayValue, (3...100).contains(items.count) else {
                errors.add("polygon", "must be a list of 3 to 100 points")
                break
            }
            let points = items.enumerated().compactMap { point($1, "polygon[\($0)]", &errors) }
            if points.count == items.count {
                if Geometry.boundingCircle(points).radius > 100_000 {
                    errors.add("polygon", "must fit in a circle of 100 km")
                } else {
                    shape = .polygon(points)
                }
            }
        default:
            errors.add("shape", "must be circle or polygon")
        }
        var locationID: Int64?
        if let value = body["location_id"], !value.isNull {
            locationID = POSInput.id(value)
            if locationID == nil { errors.add("location_id", "must be a location id") }
        }
        try errors.check()
        return (name!, shape!, locationID)
    }
}
