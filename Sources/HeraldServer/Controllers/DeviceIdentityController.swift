import HeraldDomain
import HeraldHTTP
import HeraldModel
import HeraldStore

/// Which user an install belongs to (`Herald.identify` / `Herald.logout`): `PUT /api/v1/device/user` with the user's
/// `external_id` and the business backend's `identity_token`, `DELETE /api/v1/device/user`; and, for the business's
/// backend, its identity key (`GET /api/admin/businesses/{id}/identity-key`). The rules are `DeviceIdentityService`'s;
/// the proof is `IdentityVerifier`'s.
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
        guard verifier.vouches(token: token!, for: externalID!, businessID: device.businessID) else {
            throw HTTPError(
                .forbidden, field: "identity_token",
                "does not vouch for external_id: the hex HMAC-SHA256 of the external_id under the business's identity key"
            )
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

    /// `{"identity_key"}`: what the business's backend signs external ids with. The same on every call.
    @Sendable func identityKey(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        return .json(
            .object([
                ("id", .int(business.id)), ("identity_key", .string(verifier.key(for: business.id))),
                ("algorithm", "HMAC-SHA256"),
            ]))
    }
}
