import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// What the device API's geofence calls accept: the point a device asks around (`GET /api/v1/geofences`) and the
/// visit it reports (`POST /api/v1/geofence-events`).
enum DeviceGeofenceInput {
    /// A visit's fields.
    static let visitFields: Set<String> = [
        "geofence_id", "event", "occurred_at", "latitude", "longitude", "accuracy_meters",
    ]

    /// The query's `latitude` and `longitude`; 422 naming each that is missing or out of range.
    static func point(latitude: String?, longitude: String?) throws -> Geofence.Point {
        var errors = FieldErrors()
        let latitude = coordinate(latitude, "latitude", -90...90, &errors)
        let longitude = coordinate(longitude, "longitude", -180...180, &errors)
        try errors.check()
        return Geofence.Point(latitude: latitude!, longitude: longitude!)
    }

    /// The visit `body` reports under its `Idempotency-Key` header, its `occurred_at` within `acceptedTimes` (a
    /// phone offline for a while reports late); 422 naming every field that is wrong.
    static func visit(_ body: JSON, idempotencyKey: String?, acceptedTimes: ClosedRange<Timestamp>) throws
        -> GeofenceService.Visit
    {
        var errors = FieldErrors()
        let key = idempotencyKey ?? ""
        if key.isEmpty || key.utf8.count > 255 || key.utf8.contains(where: { $0 < 0x21 || $0 > 0x7E }) {
            errors.add("idempotency_key", "the Idempotency-Key header must be 1 to 255 visible ASCII characters")
        }
        errors.refuseUnknown(body, known: visitFields)
        var geofenceID: Int64?
        switch body["geofence_id"] {
        case .int(let id)? where id > 0: geofenceID = id
        case nil, .null?: errors.add("geofence_id", "can't be blank")
        default: errors.add("geofence_id", "must be a geofence id (a positive integer)")
        }
        let event = DeviceInput.oneOf(body["event"], "event", ["enter", "exit"], &errors)
        var occurredAt: Timestamp?
        switch DeviceEventValidator.time(body["occurred_at"], field: "occurred_at", within: acceptedTimes) {
        case .success(let time): occurredAt = time
        case .failure(let problem): errors.add(problem.field, problem.message)
        }
        _ = number(body["latitude"], "latitude", -90...90, &errors)
        _ = number(body["longitude"], "longitude", -180...180, &errors)
        _ = number(body["accuracy_meters"], "accuracy_meters", 0...1_000_000, &errors)
        try errors.check()
        return GeofenceService.Visit(
            geofenceID: geofenceID!, event: event!, occurredAt: occurredAt!, idempotencyKey: key)
    }

    /// A query coordinate: required, a finite number within `range`.
    static func coordinate(_ text: String?, _ field: String, _ range: ClosedRange<Double>, _ errors: inout FieldErrors)
        -> Double?
    {
        guard let text, !text.isEmpty else {
            errors.add(field, "can't be blank")
            return nil
        }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            errors.add(field, "must be a number from \(Int(range.lowerBound)) to \(Int(range.upperBound))")
            return nil
        }
        return value
    }

    /// An optional body number within `range`.
    static func number(_ value: JSON?, _ field: String, _ range: ClosedRange<Double>, _ errors: inout FieldErrors)
        -> Double?
    {
        guard let value, !value.isNull else { return nil }
        guard let number = value.doubleValue, number.isFinite, range.contains(number) else {
            errors.add(field, "must be a number from \(Int(range.lowerBound)) to \(Int(range.upperBound))")
            return nil
        }
        return number
    }
}
