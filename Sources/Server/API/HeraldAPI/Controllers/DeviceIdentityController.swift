import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// Which user an install belongs to (`Herald.identify` / `Herald.logout`): `PUT /api/v1/device/user` with the user's
/// `external_id` and the business backend's `identity_token`, `DELETE /api/v1/device/user`; and, for the business's
/// backend, its original identity key (`GET /api/admin/businesses/{id}/identity-key`; the others are
/// `AdminIdentityKeyController`'s). The rules are `DeviceIdentityService`'s; the proof is `IdentityVerifier`'s.
struct DeviceIdentityController: Sendable {
    let admin: AdminAccess
    let auth: DeviceAuthenticator
    let identities: DeviceIdentityService
    let verifier: IdentityVerifier

    func register(in router: inout Router) {
        router.put("/api/v1/device/user", identify)
        router.delete("/api/v1/device/user", forget)
        router.get("/api/admin/businesses/{id}/identity-key", admin.guarded(identityKey))
    }

    /// `{"external_id","identity_token"}`: the install belongs to that user (made when the import hasn't yet) → 200
    /// `{"external_id"}`; 403 on `identity_token` when it doesn't vouch for the id; 422 on malformed fields.
    @Sendable func identify(_ request: HTTPRequest) throws -> HTTPResponse {
        let device = try auth.install(request)
        let body = try request.jsonObjectBody()
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: ["external_id", "identity_token"])
        var externalID: String?
        switch body["external_id"] {
        case .string(let text)?
        where !text.isEmpty && text.count <= 255 && DisplayText.isLine(text)
            && text.trimmingCharacters(in: " ") == text:
            externalID = text
        case nil, .null?: errors.add("external_id", "can't be blank")
        case .string?: errors.add("external_id", "must be 1–255 printable characters, without spaces around them")
        default: errors.add("external_id", "must be a string")
        }
        var token: String?
        switch body["identity_token"] {
        case .string(let text)? where !text.isEmpty: token = text
        case nil, .null?, .string?: errors.add("identity_token", "can't be blank (your backend signs the external_id)")
        default: errors.add("identity_token", "must be a string")
        }
        try errors.check()
        guard try verifier.vouches(token: token!, for: externalID!, businessID: device.businessID) else {
            throw HTTPError(.forbidden, field: "identity_token", IdentityVerifier.refusal)
        }
        _ = try identities.identify(device, externalID: externalID!)
        return .json(.object([("external_id", .string(externalID!))]))
    }

    /// The install belongs to nobody: 204.
    @Sendable func forget(_ request: HTTPRequest) throws -> HTTPResponse {
        let device = try auth.install(request)
        _ = try identities.forget(device)
        return HTTPResponse(status: .noContent)
    }

    /// `{"identity_key"}`: the original key the business's backend signs external ids with. The same on every call,
    /// until it is retired: then 404 on `identity_key`.
    @Sendable func identityKey(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        guard let key = try verifier.liveKey(IdentityVerifier.originalKID, of: business.id) else {
            throw HTTPError(
                .notFound, field: "identity_key",
                "was retired: the business's live keys are listed at /api/admin/businesses/\(business.id)/identity-keys"
            )
        }
        return .json(
            .object([
                ("id", .int(business.id)), ("kid", .string(IdentityVerifier.originalKID)),
                ("identity_key", .string(key)), ("algorithm", "HMAC-SHA256"),
            ]))
    }
}
