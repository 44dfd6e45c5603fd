import HeraldModel

extension DeviceInput {
    /// What a registration offers as proof of a known device's user, its shape checked (the values are checked
    /// against the store and the identity key by the controller).
    struct OfferedProof: Sendable {
        /// A Punchh API access token.
        var accessToken: String?
        /// An external id and the business backend's `identity_token` for it.
        var identity: (externalID: String, token: String)?
    }

    /// The proof fields of a registration body: `access_token`, and `external_id` with `identity_token` (both or
    /// neither). Nil when none is sent.
    static func proof(_ body: JSON, _ errors: inout FieldErrors) -> OfferedProof? {
        var proof = OfferedProof()
        let accessToken = string(body["access_token"], "access_token", maximumBytes: 512, &errors)
        proof.accessToken = accessToken
        let externalID = string(body["external_id"], "external_id", maximumBytes: 255, &errors)
        let token = string(body["identity_token"], "identity_token", maximumBytes: 128, &errors)
        switch (externalID, token) {
        case (let id?, let token?): proof.identity = (id, token)
        case (_?, nil): errors.add("identity_token", "can't be blank with external_id (your backend signs it)")
        case (nil, _?): errors.add("external_id", "can't be blank with identity_token")
        case (nil, nil): break
        }
        return proof.accessToken == nil && proof.identity == nil ? nil : proof
    }

    /// An optional non-empty string field of at most `maximumBytes` bytes without control characters.
    private static func string(_ value: JSON?, _ field: String, maximumBytes: Int, _ errors: inout FieldErrors)
        -> String?
    {
        guard let value, !value.isNull else { return nil }
        guard let text = value.stringValue else {
            errors.add(field, "must be a string")
            return nil
        }
        guard !text.isEmpty, text.utf8.count <= maximumBytes, DisplayText.isLine(text) else {
            errors.add(field, "must be 1 to \(maximumBytes) bytes without control characters or bidirectional controls")
            return nil
        }
        return text
    }
}
