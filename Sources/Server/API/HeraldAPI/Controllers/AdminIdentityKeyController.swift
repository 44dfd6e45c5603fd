import HeraldHTTPServer
import HeraldModel

/// A business's identity keys, what its backend signs its users' external ids with (docs/sdk.md, Identity): listed,
/// added (the key shown once) and retired. A rotation adds the new key, moves the backend over while both vouch,
/// then retires the old; retiring a key is also how a leaked one is revoked. The rules are the domain's
/// (`IdentityKeyService`).
struct AdminIdentityKeyController: Sendable {
    let admin: AdminAccess
    let verifier: IdentityVerifier

    func register(in router: inout Router) {
        router.get("/api/admin/businesses/{id}/identity-keys", admin.guarded(list))
        router.post("/api/admin/businesses/{id}/identity-keys", admin.guarded(add))
        router.delete("/api/admin/businesses/{id}/identity-keys/{kid}", admin.guarded(retire))
    }

    /// `{"identity_keys":[{"kid","algorithm","created_at","retired_at"}]}`: the original first, never a key's text.
    @Sendable func list(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let keys = try verifier.keys.keys(of: business).map { key in
            JSON.object([
                ("kid", .string(key.kid)), ("algorithm", "HMAC-SHA256"), ("created_at", .string(key.createdAt.iso8601)),
                ("retired_at", key.retiredAt.map { .string($0.iso8601) } ?? .null),
            ])
        }
        return .json(.object([("identity_keys", .array(keys))]))
    }

    /// No fields: 201 `{"id","kid","identity_key","algorithm","created_at"}`, the key shown this once; 422 on `base`
    /// while ten vouch already.
    @Sendable func add(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        try FieldErrors.refusingUnknown(try admin.object(request), known: [])
        let added = try verifier.keys.addKey(to: business)
        return .json(
            .object([
                ("id", .int(business.id)), ("kid", .string(added.kid)), ("identity_key", .string(added.key)),
                ("algorithm", "HMAC-SHA256"), ("created_at", .string(added.createdAt.iso8601)),
            ]), status: .created)
    }

    /// 204: the key vouches for nobody from now on (again 204 for a retired one); 404 on `kid` for no key of the
    /// business.
    @Sendable func retire(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        guard let kid = request.parameter("kid"), kid.utf8.count <= 64 else {
            throw IdentityVerifier.unknownKey
        }
        try verifier.keys.retireKey(kid, of: business)
        return HTTPResponse(status: .noContent)
    }
}
