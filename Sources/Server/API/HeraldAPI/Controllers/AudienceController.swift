import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// The admin API's audiences: the bulk import of users (NDJSON, streamed: any size in constant memory) and
/// segments, the named filters campaigns are sent to, counted in the database.
///
/// - `POST …/users/import`: one user a line; 200 `{"created","updated","rejected":[{"line","errors"}],
///   "rejected_count","rejected_truncated","lines"}`.
/// - `POST …/segments` `{"name","filter"}` → 201 `{"id",…}`; `GET …/segments[?after=&limit=]`;
///   `GET …/segments/{sid}` (with `"count"`); `DELETE …/segments/{sid}`; `POST …/segments/count` `{"filter"}` →
///   `{"count"}` without saving.
struct AudienceController: Sendable {
    let admin: AdminAccess
    let importer: UserImporter
    let segments: SegmentService

    func register(in router: inout Router) {
        let admin = self.admin
        let importer = self.importer
        router.stream(.post, "/api/admin/businesses/{id}/users/import") { head in
            // Checked before the body is read: nobody else streams into Herald.
            try admin.auth.authenticate(head)
            let business = try admin.business(head)
            return UserImportStream(importer: importer, businessID: business.id)
        }
        router.post("/api/admin/businesses/{id}/segments", admin.guarded(createSegment))
        router.get("/api/admin/businesses/{id}/segments", admin.guarded(listSegments))
        router.post("/api/admin/businesses/{id}/segments/count", admin.guarded(countSegment))
        router.get("/api/admin/businesses/{id}/segments/{sid}", admin.guarded(showSegment))
        router.delete("/api/admin/businesses/{id}/segments/{sid}", admin.guarded(deleteSegment))
    }

    static func json(_ segment: Segment, count: Int? = nil) -> JSON {
        var pairs: [(key: String, value: JSON)] = [
            ("id", .int(segment.id)), ("name", .string(segment.name)), ("filter", segment.filter.json),
            ("created_at", .string(segment.createdAt.iso8601)),
        ]
        if let count { pairs.append(("count", JSON(count))) }
        return .object(pairs)
    }

    /// `filter` of the body, checked; 422 naming the bad node's path otherwise.
    private func filter(_ body: JSON, _ errors: inout FieldErrors) -> SegmentFilter? {
        guard let value = body["filter"], !value.isNull else {
            errors.add("filter", "can't be blank")
            return nil
        }
        do {
            return try SegmentFilter(json: value)
        } catch {
            errors.add(error.path, error.message)
            return nil
        }
    }

    private func segmentID(_ request: HTTPRequest) throws -> Int64 {
        guard let id = request.parameter("sid").flatMap(PathID.parse) else {
            throw HTTPError.notFound("segment not found")
        }
        return id
    }

    @Sendable func createSegment(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let body = try admin.object(request)
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: ["name", "filter"])
        let name = AdminInput.requiredString(body, "name", max: 200, &errors)
        let filter = filter(body, &errors)
        try errors.check()
        let segment = try segments.create(businessID: business.id, name: name!, filter: filter!)
        return .json(Self.json(segment), status: .created)
    }

    @Sendable func showSegment(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let (segment, count) = try segments.find(businessID: business.id, id: try segmentID(request))
        return .json(Self.json(segment, count: count))
    }

    @Sendable func listSegments(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        var errors = FieldErrors()
        var cursor: Int64 = 0
        if let after = request.queryValue("after") {
            if let id = PathID.parse(after) { cursor = id } else { errors.add("after", "must be a segment id") }
        }
        var limit = 100
        if let text = request.queryValue("limit") {
            if let number = Int(text), (1...500).contains(number) {
                limit = number
            } else {
                errors.add("limit", "must be a whole number from 1 to 500")
            }
        }
        try errors.check()
        let page = try segments.list(businessID: business.id, after: cursor, limit: limit)
        var pairs: [(key: String, value: JSON)] = [("data", .array(page.map { Self.json($0) }))]
        pairs.append(("next_after", page.count == limit ? JSON(page.last?.id) : .null))
        return .json(.object(pairs))
    }

    @Sendable func countSegment(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let body = try admin.object(request)
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: ["filter"])
        let filter = filter(body, &errors)
        try errors.check()
        return .json(["count": JSON(try segments.count(businessID: business.id, filter: filter!))])
    }

    @Sendable func deleteSegment(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        try segments.delete(businessID: business.id, id: try segmentID(request))
        return HTTPResponse(status: .noContent)
    }
}
