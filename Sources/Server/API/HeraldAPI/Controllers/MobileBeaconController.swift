import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// Punchh's beacon calls (docs/openapi.json): an app reports its signed-in user coming within range of a beacon at
/// one of the business's locations (`beacon_entry`) or leaving it (`beacon_exit`). Each is a visit of the geofences
/// drawn around that location, so geofence campaigns reach Punchh apps too (`GeofenceService.visit(_:business:)`).
///
/// Body (signed, as every mobile call): `{"client","beacon_major","beacon_minor"}` — `beacon_major` is the
/// business's id (`GET /api/admin/businesses/{id}` shows it), `beacon_minor` one beacon of one of its locations.
/// Answered 200 `{}`.
struct MobileBeaconController: Sendable {
    let auth: MobileAuthenticator
    let geofences: GeofenceService

    func register(in router: inout Router) {
        router.post("/api2/mobile/locations/beacon_entry") { try visit($0, event: "enter") }
        router.delete("/api2/mobile/locations/beacon_exit") { try visit($0, event: "exit") }
    }

    func visit(_ request: HTTPRequest, event: String) throws -> HTTPResponse {
        let call = try auth.signedIn(request)
        let business = call.client.business
        var errors = FieldErrors()
        let major = call.parameters.int64("beacon_major")
        if call.parameters.has("beacon_major"), major != business.id {
            errors.add("beacon_major", "is not this business's (its beacon_major is \(business.id))")
        }
        let minor = call.parameters.int64("beacon_minor")
        if minor == nil {
            errors.add("beacon_minor", call.parameters.has("beacon_minor") ? "is invalid" : "is required")
        }
        try errors.check()
        try geofences.visit(
            GeofenceService.BeaconVisit(
                event: event, beaconMinor: minor!, userID: call.user.id, deviceID: call.session.deviceID),
            business: business)
        return .json(.object([]))
    }
}
