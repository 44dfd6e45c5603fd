import HeraldCrypto
import HeraldDomain
import HeraldHTTP
import HeraldModel
import HeraldStore

/// Geofences for the SDK, signed like the rest of the device API: the ones near the device that running campaigns
/// are triggered by (the SDK monitors them), and the visits it reports, answered with the messages they triggered.
struct DeviceGeofenceController: Sendable {
    let store: Store
    let auth: DeviceAuthenticator
    let geofences: GeofenceService
    let clock: WallClock
    /// Whose window of accepted times a visit's `occurred_at` shares.
    let events: DeviceEventService

    static let visitFields: Set<String> = [
        "geofence_id", "event", "occurred_at", "latitude", "longitude", "accuracy_meters",
    ]

    func register(in router: inout Router) {
        router.get("/api/v1/geofences", nearby)
        router.post("/api/v1/geofence-events", visit)
    }

    @Sendable func nearby(_ request: HTTPRequest) throws -> HTTPResponse {
        let device = try auth.install(request)
        var errors = FieldErrors()
        let latitude = Self.coordinate(request.queryValue("latitude"), "latitude", -90...90, &errors)
        let longitude = Self.coordinate(request.queryValue("longitude"), "longitude", -180...180, &errors)
        try errors.check()
        let business = try self.business(of: device)
        let found = try geofences.near(
            business: business, point: Geofence.Point(latitude: latitude!, longitude: longitude!),
            sandbox: device.install?.workspace == .sandbox)
        let list = found.geofences.map { nearby -> JSON in
            var pairs = AdminCampaignController.json(nearby.geofence).objectValue ?? []
            pairs.removeAll { $0.key == "location_id" }
            pairs.append(("triggers", .array(nearby.triggers.map { .string($0) })))
            return .object(pairs)
        }
        let body = JSON.object([
            ("data", .array(list)),
            (
                "meta",
                .object([
                    ("refresh_seconds", .int(Int64(found.refreshSeconds))),
                    ("refresh_distance_meters", .int(Int64(found.refreshDistanceMeters))),
                ])
            ),
        ]).encoded
        // The answer's own hash: a device asking again from where nothing changed is told so in 304 bytes.
        let etag = "W/\"geo-" + Hex.encode(Array(SHA256.hash(body).prefix(16))) + "\""
        if request.ifNoneMatch(etag) {
            return HTTPResponse(status: .notModified, headers: [("etag", etag)])
        }
        var response = HTTPResponse.json(body)
        response.headers.append(("etag", etag))
        response.headers.append(("cache-control", "private, no-cache"))
        return response
    }

    @Sendable func visit(_ request: HTTPRequest) throws -> HTTPResponse {
        let device = try auth.install(request)
        let body = try request.jsonObjectBody()
        var errors = FieldErrors()
        let key = request.header("idempotency-key") ?? ""
        if key.isEmpty || key.utf8.count > 255 || key.utf8.contains(where: { $0 < 0x21 || $0 > 0x7E }) {
            errors.add("idempotency_key", "the Idempotency-Key header must be 1 to 255 visible ASCII characters")
        }
        errors.refuseUnknown(body, known: Self.visitFields)
        var geofenceID: Int64?
        switch body["geofence_id"] {
        case .int(let id)? where id > 0: geofenceID = id
        case nil, .null?: errors.add("geofence_id", "can't be blank")
        default: errors.add("geofence_id", "must be a geofence id (a positive integer)")
        }
        let event = DeviceInput.oneOf(body["event"], "event", ["enter", "exit"], &errors)
        let now = clock.now()
        var occurredAt: Timestamp?
        // The window events are accepted in: a phone offline for a while reports late.
        switch DeviceEventValidator.time(
            body["occurred_at"], field: "occurred_at", within: events.acceptedTimes(at: now))
        {
        case .success(let time): occurredAt = time
        case .failure(let problem): errors.add(problem.field, problem.message)
        }
        _ = Self.number(body["latitude"], "latitude", -90...90, &errors)
        _ = Self.number(body["longitude"], "longitude", -180...180, &errors)
        _ = Self.number(body["accuracy_meters"], "accuracy_meters", 0...1_000_000, &errors)
        try errors.check()
        let answer = try geofences.visit(
            GeofenceService.Visit(
                geofenceID: geofenceID!, event: event!, occurredAt: occurredAt!, idempotencyKey: key),
            device: device)
        return .json(answer)
    }

    private func business(of device: Device) throws -> Business {
        guard let business = try store.read({ try $0.businesses.find(id: device.businessID) }) else {
            throw HTTPError.notFound("business not found")
        }
        return business
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
