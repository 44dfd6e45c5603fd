import HeraldCrypto
import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// Geofences for the SDK, signed like the rest of the device API: the ones near the device that running campaigns
/// are triggered by (the SDK monitors them), and the visits it reports, answered with the messages they triggered.
struct DeviceGeofenceController: Sendable {
    let auth: DeviceAuthenticator
    let geofences: GeofenceService
    let clock: WallClock
    /// Whose window of accepted times a visit's `occurred_at` shares.
    let events: DeviceEventService

    func register(in router: inout Router) {
        router.get("/api/v1/geofences", nearby)
        router.post("/api/v1/geofence-events", visit)
    }

    @Sendable func nearby(_ request: HTTPRequest) throws -> HTTPResponse {
        let device = try auth.install(request)
        let point = try DeviceGeofenceInput.point(
            latitude: request.queryValue("latitude"), longitude: request.queryValue("longitude"))
        let found = try geofences.near(device: device, point: point)
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
        var visit = try DeviceGeofenceInput.visit(
            try request.jsonObjectBody(), idempotencyKey: request.header("idempotency-key"),
            acceptedTimes: events.acceptedTimes(at: clock.now()))
        visit.requestHash = Hex.encode(SHA256.hash(request.body))
        return .json(try geofences.visit(visit, device: device))
    }
}
