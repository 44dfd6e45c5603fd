import Foundation
import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// The admin API's campaigns and geofences (docs/openapi.json): a campaign written as a draft, launched (its fan-out
/// runs in the background), paused, cancelled, reported on; geofences drawn for campaigns to trigger on.
struct AdminCampaignController: Sendable {
    let admin: AdminAccess
    let campaigns: CampaignService
    let geofences: GeofenceService
    let events: DeviceEventService
    /// Tells the fan-out a campaign was launched.
    let launched: @Sendable () -> Void

    func register(in router: inout Router) {
        router.post("/api/admin/businesses/{id}/campaigns", admin.guarded(create))
        router.get("/api/admin/businesses/{id}/campaigns", admin.guarded(list))
        router.get("/api/admin/businesses/{id}/campaigns/{cid}", admin.guarded(show))
        router.post("/api/admin/businesses/{id}/campaigns/{cid}/launch", admin.guarded(launch))
        router.post("/api/admin/businesses/{id}/campaigns/{cid}/pause", admin.guarded(pause))
        router.post("/api/admin/businesses/{id}/campaigns/{cid}/cancel", admin.guarded(cancel))
        router.get("/api/admin/businesses/{id}/campaigns/{cid}/report", admin.guarded(report))
        router.post("/api/admin/businesses/{id}/geofences", admin.guarded(createGeofence))
        router.get("/api/admin/businesses/{id}/geofences", admin.guarded(listGeofences))
        router.delete("/api/admin/businesses/{id}/geofences/{gid}", admin.guarded(deleteGeofence))
    }

    // MARK: - Campaigns

    @Sendable func create(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let spec = try CampaignInput.spec(try admin.object(request), admin: admin)
        let campaign = try campaigns.create(spec, business: business)
        return .json(Self.json(campaign, counters: nil), status: .created)
    }

    @Sendable func list(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let page = try Page(request)
        let found = try campaigns.list(businessID: business.id, limit: page.limit, offset: page.offset)
        return .list(found) { Self.json($0, counters: nil) }
    }

    @Sendable func show(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let id = try campaignID(request)
        guard let found = try campaigns.find(businessID: business.id, id: id) else {
            throw HTTPError.notFound("campaign not found")
        }
        return .json(Self.json(found.campaign, counters: found.counters))
    }

    @Sendable func launch(_ request: HTTPRequest) throws -> HTTPResponse {
        let campaign = try campaigns.launch(business: try admin.business(request), id: try campaignID(request))
        launched()
        return .json(.object([("id", .int(campaign.id)), ("status", .string(campaign.status.rawValue))]))
    }

    @Sendable func pause(_ request: HTTPRequest) throws -> HTTPResponse {
        let campaign = try campaigns.pause(business: try admin.business(request), id: try campaignID(request))
        return .json(.object([("id", .int(campaign.id)), ("status", .string(campaign.status.rawValue))]))
    }

    @Sendable func cancel(_ request: HTTPRequest) throws -> HTTPResponse {
        let campaign = try campaigns.cancel(business: try admin.business(request), id: try campaignID(request))
        return .json(.object([("id", .int(campaign.id)), ("status", .string(campaign.status.rawValue))]))
    }

    /// The campaign's funnel, read from its counters (fifteen rows whatever its size).
    @Sendable func report(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        guard let report = try events.report(businessID: business.id, campaignID: try campaignID(request)) else {
            throw HTTPError.notFound("campaign not found")
        }
        return .json(report.json)
    }

    private func campaignID(_ request: HTTPRequest) throws -> Int64 {
        guard let id = request.parameter("cid").flatMap(PathID.parse) else {
            throw HTTPError.notFound("campaign not found")
        }
        return id
    }

    /// A campaign as the admin API shows it; with its counters when given.
    static func json(_ campaign: Campaign, counters: [String: Int64]?) -> JSON {
        var message = campaign.message
        if case .object(var pairs) = message {
            pairs.removeAll { ["id", "campaign_id", "sandbox", "type", "questions"].contains($0.key) }
            message = .object(pairs)
        }
        var pairs: [(key: String, value: JSON)] = [
            ("id", .int(campaign.id)), ("name", .string(campaign.name)), ("status", .string(campaign.status.rawValue)),
            ("message", message), ("audience", campaign.audience),
            ("channels", .array(campaign.channels.map { .string($0) })), ("trigger", campaign.trigger),
            ("limits", campaign.limits), ("sandbox", .bool(campaign.sandbox)),
            ("launched_at", JSON(campaign.launchedAt?.iso8601)), ("finished_at", JSON(campaign.finishedAt?.iso8601)),
            ("created_at", .string(campaign.createdAt.iso8601)),
        ]
        if let counters {
            pairs.append(
                (
                    "progress",
                    .object([("targeted", .int(counters["targeted"] ?? 0)), ("sent", .int(counters["sent"] ?? 0))])
                ))
        }
        return .object(pairs)
    }

    // MARK: - Geofences

    @Sendable func createGeofence(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let (name, shape, locationID) = try GeofenceInput.geofence(try admin.object(request))
        let geofence = try geofences.create(business: business, name: name, shape: shape, locationID: locationID)
        return .json(Self.json(geofence), status: .created)
    }

    @Sendable func listGeofences(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let page = try Page(request)
        let found = try geofences.list(businessID: business.id, limit: page.limit, offset: page.offset)
        return .list(found) { Self.json($0) }
    }

    @Sendable func deleteGeofence(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        guard let id = request.parameter("gid").flatMap(PathID.parse),
            try geofences.delete(businessID: business.id, id: id)
        else { throw HTTPError.notFound("geofence not found") }
        return HTTPResponse(status: .noContent)
    }

    /// A geofence as the APIs show it (the shape docs/openapi.json gives).
    static func json(_ geofence: Geofence) -> JSON {
        func point(_ point: Geofence.Point) -> JSON {
            .object([("latitude", .double(point.latitude)), ("longitude", .double(point.longitude))])
        }
        var pairs: [(key: String, value: JSON)] = [
            ("id", .int(geofence.id)), ("name", .string(geofence.name)), ("shape", .string(geofence.shape)),
            ("center", point(geofence.center)), ("radius_meters", .double(geofence.radiusMeters)),
        ]
        if let polygon = geofence.polygon { pairs.append(("polygon", .array(polygon.map(point)))) }
        pairs.append(("location_id", JSON(geofence.locationID)))
        return .object(pairs)
    }
}
