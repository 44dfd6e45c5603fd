import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// What every admin route shares: the bearer-token check, the business its path names, its JSON body, and the
/// check of media it names among the files Herald hosts. Handed to each admin controller; itself holds no rule.
struct AdminAccess: Sendable {
    /// The admin token's check.
    let auth: AdminAuthenticator
    /// Where businesses are found.
    let businesses: BusinessService
    /// What `media` may name among the files Herald hosts.
    let hostedMedia: HostedMedia

    /// Wraps a handler with the admin token check.
    func guarded(_ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) -> HTTPHandler {
        let auth = self.auth
        return { request in
            try auth.authenticate(request)
            return try handler(request)
        }
    }

    /// The business named by the `{id}` path parameter; 404 when there is none.
    func business(_ request: HTTPRequest) throws -> Business {
        guard let id = request.parameter("id").flatMap(PathID.parse), let business = try businesses.find(id: id) else {
            throw HTTPError.notFound("business not found")
        }
        return business
    }

    /// The body as a JSON object; 400 otherwise.
    func object(_ request: HTTPRequest) throws -> JSON { try request.jsonObjectBody() }

    /// A `media` value checked: `{url, type}` of a type iOS attaches, and, if it links to a file hosted here, one
    /// that was uploaded, of that type.
    func attachment(_ value: JSON, field: String, _ errors: inout FieldErrors) -> MediaAttachment? {
        let media = MediaInput.attachment(value, field: field, hosted: hostedMedia.isHosted, &errors)
        if let media { hostedMedia.check(media, field: field, &errors) }
        return media
    }

    /// Adds to `errors`, on `field`, what is wrong with `url` as media a phone downloads (`MediaInput.urlProblem`).
    func checkMediaURL(_ url: String, field: String, _ errors: inout FieldErrors) {
        if let problem = MediaInput.urlProblem(url, hosted: hostedMedia.isHosted(url)) { errors.add(field, problem) }
    }

    /// `user_ids`: a non-empty list of at most 10,000 ids, duplicates dropped, order kept (whether they are the
    /// business's users is the domain's to say).
    static func userIDs(_ body: JSON) throws -> [Int64] {
        guard let items = body["user_ids"]?.arrayValue, !items.isEmpty else {
            throw HTTPError.invalid("user_ids", "must be a non-empty list of user ids")
        }
        guard items.count <= 10_000 else { throw HTTPError.invalid("user_ids", "at most 10000 users per call") }
        var seen = Set<Int64>()
        var ids: [Int64] = []
        for item in items {
            guard let id = item.int64Value else { throw HTTPError.invalid("user_ids", "must be a list of user ids") }
            if seen.insert(id).inserted { ids.append(id) }
        }
        return ids
    }
}
