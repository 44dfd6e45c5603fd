import HeraldModel

/// One device-API call before signing: method, path under the base URL, query, body.
struct DeviceRequest: Sendable {
    /// `GET`, `POST`, `PUT`, `DELETE`.
    var method: String
    /// The path from `/api/v1/…`, segments already percent-encoded.
    var path: String
    /// Query parameters, decoded.
    var query: [(name: String, value: String)] = []
    /// The JSON body, if any.
    var body: JSON?
    /// Other headers (`If-None-Match`, `Idempotency-Key`).
    var headers: [(name: String, value: String)] = []

    /// The body's bytes (empty for none).
    var bodyBytes: [UInt8] { body?.encoded ?? [] }

    /// `/api/v1/notifications/{id}` with the id percent-encoded as one segment.
    static func segment(_ text: String) -> String { QueryString.percentEncoded(text) }

    // MARK: - The endpoints

    /// `POST /api/v1/installs` (unsigned).
    static func register(_ body: JSON) -> DeviceRequest {
        DeviceRequest(method: "POST", path: "/api/v1/installs", body: body)
    }
    /// `PUT /api/v1/installs/current`.
    static func update(_ body: JSON) -> DeviceRequest {
        DeviceRequest(method: "PUT", path: "/api/v1/installs/current", body: body)
    }
    /// `PUT /api/v1/device/segments`.
    static func segments(_ segments: [String]) -> DeviceRequest {
        DeviceRequest(
            method: "PUT", path: "/api/v1/device/segments",
            body: .object([("segments", .array(segments.map { .string($0) }))]))
    }
    /// `PUT /api/v1/device/user`: the install belongs to the user with `externalID`, vouched for by the business's
    /// backend (`identityToken`).
    static func identify(externalID: String, identityToken: String) -> DeviceRequest {
        DeviceRequest(
            method: "PUT", path: "/api/v1/device/user",
            body: .object([("external_id", .string(externalID)), ("identity_token", .string(identityToken))]))
    }
    /// `DELETE /api/v1/device/user`: the install belongs to nobody.
    static let forgetUser = DeviceRequest(method: "DELETE", path: "/api/v1/device/user")
    /// `DELETE /api/v1/device`.
    static let deleteDevice = DeviceRequest(method: "DELETE", path: "/api/v1/device")
    /// `POST /api/v1/notifications/pull` with `nonce` in its signed body: two pulls in one second sign apart (the
    /// server answers a pull signed as an earlier one with that one's messages again, as it would a replay).
    static func pull(nonce: String) -> DeviceRequest {
        DeviceRequest(method: "POST", path: "/api/v1/notifications/pull", body: .object([("nonce", .string(nonce))]))
    }
    /// `GET /api/v1/notifications/{id}`.
    static func notification(id: String) -> DeviceRequest {
        DeviceRequest(method: "GET", path: "/api/v1/notifications/\(segment(id))")
    }
    /// `POST /api/v1/events`.
    static func events(_ events: [DeviceEvent]) -> DeviceRequest {
        DeviceRequest(method: "POST", path: "/api/v1/events", body: .object([("events", .array(events.map(\.json)))]))
    }
    /// `GET /api/v1/geofences?latitude=&longitude=`, with `If-None-Match` when an ETag is known.
    static func geofences(around point: Coordinate, etag: String?) -> DeviceRequest {
        var request = DeviceRequest(
            method: "GET", path: "/api/v1/geofences",
            query: [("latitude", Self.decimal(point.latitude)), ("longitude", Self.decimal(point.longitude))])
        if let etag { request.headers.append(("If-None-Match", etag)) }
        return request
    }
    /// `POST /api/v1/geofence-events` with its `Idempotency-Key`.
    static func geofenceEvent(_ body: JSON, idempotencyKey: String) -> DeviceRequest {
        DeviceRequest(
            method: "POST", path: "/api/v1/geofence-events", body: body, headers: [("Idempotency-Key", idempotencyKey)])
    }

    /// A coordinate with 6 decimals (about 10 cm), no exponent.
    static func decimal(_ value: Double) -> String {
        let scaled = (value * 1_000_000).rounded()
        let negative = scaled < 0
        let magnitude = Int64(abs(scaled))
        let whole = magnitude / 1_000_000
        var fraction = String(magnitude % 1_000_000)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return (negative && magnitude != 0 ? "-" : "") + String(whole) + (fraction.isEmpty ? "" : "." + fraction)
    }
}
