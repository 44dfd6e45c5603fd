import HeraldModel
import HeraldStore

/// Geofences and the visits devices report to them (docs/openapi.json): which geofences a device near a point should
/// watch, and what a visit triggers — each running geofence campaign on that geofence and event that reaches the
/// device and whose limits allow it.
package struct GeofenceService: Sendable {
    let store: Store
    let notifications: NotificationService
    let clock: WallClock

    /// How far around a point geofences are looked for, in meters.
    package static let searchRadius = 50_000.0
    /// The most geofences one answer lists.
    package static let maximumListed = 100

    /// The service over `store`.
    package init(store: Store, notifications: NotificationService, clock: WallClock) {
        self.store = store
        self.notifications = notifications
        self.clock = clock
    }

    /// What a new geofence is.
    package enum Shape: Sendable, Equatable {
        /// A circle of `radiusMeters` around `center`.
        case circle(center: Geofence.Point, radiusMeters: Double)
        /// A polygon of these corners, in order.
        case polygon([Geofence.Point])
    }

    /// A page of `businessID`'s geofences.
    package func list(businessID: Int64, limit: Int, offset: Int) throws -> [Geofence] {
        try store.read { try $0.geofences.all(businessID: businessID, limit: limit, offset: offset) }
    }

    /// Deletes geofence `id` of `businessID`; false when there is none.
    package func delete(businessID: Int64, id: Int64) throws -> Bool {
        try store.transaction { try $0.geofences.delete(businessID: businessID, id: id) }
    }

    /// Creates a geofence of `business`; `locationID`, when given, must be the business's.
    package func create(business: Business, name: String, shape: Shape, locationID: Int64?) throws -> Geofence {
        let now = clock.now()
        return try store.transaction { tx in
            if let locationID, try tx.locations.find(businessID: business.id, id: locationID) == nil {
                throw DomainError(.notFound, field: "location_id", "location not found")
            }
            let (kind, center, radius, corners): (String, Geofence.Point, Double, [Geofence.Point]?)
            switch shape {
            case .circle(let middle, let meters): (kind, center, radius, corners) = ("circle", middle, meters, nil)
            case .polygon(let points):
                let circle = Geometry.boundingCircle(points)
                (kind, center, radius, corners) = ("polygon", circle.center, circle.radius, points)
            }
            return try tx.geofences.insert(
                Geofence(
                    id: 0, businessID: business.id, name: name, shape: kind, center: center, radiusMeters: radius,
                    polygon: corners, locationID: locationID, createdAt: now, updatedAt: now))
        }
    }

    /// A geofence near a device, with the events running campaigns watch it for.
    package struct Nearby: Sendable, Equatable {
        /// The geofence.
        package var geofence: Geofence
        /// `enter` and/or `exit`: what running campaigns are triggered by here.
        package var triggers: [String]
        /// How far the point is from its edge, in meters (0 inside).
        package var distance: Double
    }

    /// The geofences of the device's business within `searchRadius` of `point` that running campaigns of its
    /// workspace (live or sandbox) are triggered by, nearest edge first, at most `maximumListed`; and how far the
    /// device may move, and how long it may wait, before asking again. Not found when its business is gone.
    package func near(device: Device, point: Geofence.Point) throws -> (
        geofences: [Nearby], refreshSeconds: Int, refreshDistanceMeters: Int
    ) {
        let now = clock.now()
        let sandbox = device.install?.workspace == .sandbox
        return try store.read { tx in
            guard let business = try tx.businesses.find(id: device.businessID) else {
                throw DomainError.notFound("business")
            }
            var triggers: [Int64: Set<String>] = [:]
            for campaign in try tx.campaigns.running(at: now, limit: 1000)
            where campaign.businessID == business.id && campaign.sandbox == sandbox {
                if case .geofence(let ids, let event) = CampaignSpec(campaign).trigger {
                    for id in ids { triggers[id, default: []].insert(event) }
                }
            }
            let box = Geometry.box(around: point, meters: Self.searchRadius)
            let found = try tx.geofences.within(
                businessID: business.id, latitudes: box.latitudes, longitudes: box.longitudes, limit: 10_000)
            let nearby =
                found.compactMap { geofence -> Nearby? in
                    guard let events = triggers[geofence.id] else { return nil }
                    let distance = geofence.edgeDistance(from: point)
                    guard distance <= Self.searchRadius else { return nil }
                    return Nearby(geofence: geofence, triggers: events.sorted(), distance: max(0, distance))
                }
                .sorted { $0.distance == $1.distance ? $0.geofence.id < $1.geofence.id : $0.distance < $1.distance }
                .prefix(Self.maximumListed)
            // Moving further than the nearest geofence not listed (or a tenth of the search) may change the answer.
            let farthest = nearby.last?.distance ?? 0
            let refreshDistance = nearby.count == Self.maximumListed ? max(100, farthest / 2) : Self.searchRadius / 10
            return (Array(nearby), 3600, Int(refreshDistance))
        }
    }

    /// A visit a device reported.
    package struct Visit: Sendable {
        /// The geofence.
        package var geofenceID: Int64
        /// `enter` or `exit`.
        package var event: String
        /// When the device saw it.
        package var occurredAt: Timestamp
        /// The device's `Idempotency-Key`: the same key answers the same again.
        package var idempotencyKey: String
        /// A digest of the request (its body): the same key with another request is refused.
        package var requestHash: String?

        /// A visit.
        package init(
            geofenceID: Int64, event: String, occurredAt: Timestamp, idempotencyKey: String, requestHash: String? = nil
        ) {
            self.requestHash = requestHash
            self.geofenceID = geofenceID
            self.event = event
            self.occurredAt = occurredAt
            self.idempotencyKey = idempotencyKey
        }
    }

    /// Records a visit and returns the messages it triggered now, as the device shows them (JSON): for each
    /// running geofence campaign of the device's workspace on this geofence and event whose audience reaches the
    /// device and whose cooldown, per-install maximum and frequency cap allow it. A message that falls in the
    /// device's quiet hours is held until they end (pushed or pulled then, not answered now). The same key answers
    /// the same again; the same key with another request (`requestHash`) is refused on `idempotency_key_reused`.
    package func visit(_ visit: Visit, device: Device) throws -> JSON {
        let now = clock.now()
        return try store.transaction { tx in
            if let kept = try tx.deviceEvents.answer(deviceID: device.id, key: visit.idempotencyKey) {
                // The convention of payment APIs: a key names one request; sent with another, it is refused.
                if let first = kept.requestHash, let this = visit.requestHash, first != this {
                    throw DomainError(
                        .invalid, field: "idempotency_key_reused",
                        "this Idempotency-Key was sent before with another request; use a new key for a new visit")
                }
                return kept.answer
            }
            guard try tx.geofences.find(businessID: device.businessID, id: visit.geofenceID) != nil else {
                throw DomainError(.notFound, field: "geofence_id", "geofence not found")
            }
            guard let business = try tx.businesses.find(id: device.businessID) else {
                throw DomainError.notFound("business")
            }
            let sandbox = device.install?.workspace == .sandbox
            var shown: [JSON] = []
            for triggered in try campaigns(
                triggeredBy: visit.event, at: [visit.geofenceID], device: device, business: business, sandbox: sandbox,
                in: tx, now: now)
            {
                let (campaign, spec, target, due) = (
                    triggered.campaign, triggered.spec, triggered.target, triggered.due
                )
                let key = "visit:" + visit.idempotencyKey
                // Pushed only when held past quiet hours: now, the answer shows it.
                let entry = try triggered.writer.deviceEntry(
                    for: target, due: due, push: due > now && spec.channels.contains(.push) && target.hasToken,
                    pull: due > now, triggerKey: key)
                try tx.campaigns.count(.targeted, campaignID: campaign.id)
                try tx.campaigns.count(.sent, campaignID: campaign.id)
                if due <= now {
                    shown.append(entry.deviceMessage(template: campaign.message).json)
                }
            }
            let answer: JSON = .object([("data", .object([("notifications", .array(shown))]))])
            _ = try tx.deviceEvents.keep(
                answer: answer, requestHash: visit.requestHash, deviceID: device.id, key: visit.idempotencyKey, at: now)
            return answer
        }
    }
}
