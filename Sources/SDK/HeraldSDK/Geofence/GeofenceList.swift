import HeraldModel

/// The geofences last fetched (`GET /api/v1/geofences`), with what decides when to fetch again.
struct GeofenceList: Sendable, Equatable {
    /// The geofences that could be read.
    var geofences: [Geofence]
    /// The list as the server sent it (kept for the next start).
    var raw: [JSON]
    /// The response's `ETag`, for `If-None-Match`.
    var etag: String?
    /// When it was fetched (or confirmed by a 304).
    var fetchedAt: Timestamp
    /// Where it was fetched for.
    var around: Coordinate
    /// `meta.refresh_seconds`: fetch again after this long.
    var refreshSeconds: Int64
    /// `meta.refresh_distance_meters`: fetch again after moving this far.
    var refreshDistanceMeters: Double

    static let defaultRefreshSeconds: Int64 = 3600
    static let defaultRefreshDistance = 1000.0

    /// Reads a 200 answer's body.
    init?(body: JSON, etag: String?, fetchedAt: Timestamp, around: Coordinate) {
        guard let items = body["data"]?.arrayValue else { return nil }
        raw = items
        geofences = items.compactMap(Geofence.init(json:))
        self.etag = etag
        self.fetchedAt = fetchedAt
        self.around = around
        let seconds = body["meta"]?["refresh_seconds"]?.int64Value ?? Self.defaultRefreshSeconds
        refreshSeconds = max(60, seconds)
        let distance = body["meta"]?["refresh_distance_meters"]?.doubleValue ?? Self.defaultRefreshDistance
        refreshDistanceMeters = distance.isFinite && distance > 0 ? max(100, distance) : Self.defaultRefreshDistance
    }

    /// True when it is too old, or `point` too far from where it was fetched.
    func needsRefresh(at point: Coordinate, now: Timestamp) -> Bool {
        now.since(fetchedAt) >= .seconds(refreshSeconds) || point.distance(to: around) >= refreshDistanceMeters
    }

    var json: JSON {
        var pairs: [(key: String, value: JSON)] = [
            ("data", .array(raw)), ("fetched_at", .int(fetchedAt.milliseconds)), ("around", around.json),
            (
                "meta",
                .object([
                    ("refresh_seconds", .int(refreshSeconds)),
                    ("refresh_distance_meters", .double(refreshDistanceMeters)),
                ])
            ),
        ]
        if let etag { pairs.append(("etag", .string(etag))) }
        return .object(pairs)
    }

    init?(json: JSON) {
        guard let around = Coordinate(json: json["around"]), let fetched = json["fetched_at"]?.int64Value else {
            return nil
        }
        self.init(
            body: json, etag: json["etag"]?.stringValue, fetchedAt: Timestamp(milliseconds: fetched), around: around)
    }
}

/// A geofence crossing waiting to be posted, with the idempotency key it keeps across retries.
struct PendingGeofenceEvent: Sendable, Equatable {
    /// `Idempotency-Key`: the same crossing posted twice is answered once.
    var key: String
    /// The geofence crossed.
    var geofenceID: String
    /// The body: `{"geofence_id","event","occurred_at","latitude","longitude","accuracy_meters"}`.
    var body: JSON
    /// When it happened.
    var occurredAt: Timestamp

    init(key: String, transition: GeofenceTransition) {
        self.key = key
        geofenceID = transition.geofenceID
        occurredAt = transition.fix.timestamp
        body = .object([
            ("geofence_id", .string(transition.geofenceID)), ("event", .string(transition.kind.rawValue)),
            ("occurred_at", .string(transition.fix.timestamp.iso8601WithMilliseconds)),
            ("latitude", .double(transition.fix.coordinate.latitude)),
            ("longitude", .double(transition.fix.coordinate.longitude)),
            ("accuracy_meters", .double(transition.fix.accuracyMeters)),
        ])
    }

    var json: JSON {
        .object([
            ("key", .string(key)), ("geofence_id", .string(geofenceID)), ("body", body),
            ("occurred_at", .int(occurredAt.milliseconds)),
        ])
    }

    init?(json: JSON) {
        guard let key = json["key"]?.stringValue, let id = json["geofence_id"]?.stringValue, let body = json["body"],
            let at = json["occurred_at"]?.int64Value
        else { return nil }
        self.key = key
        geofenceID = id
        self.body = body
        occurredAt = Timestamp(milliseconds: at)
    }
}
