import HeraldModel

/// The registration's JSON: `POST /api/v1/installs` and, without `api_key` and `install_id`,
/// `PUT /api/v1/installs/current`.
enum InstallBody {
    /// The fields both calls send, in the device API's order. `push_token` is `null` when there is none, so a
    /// cleared token is cleared on the server too.
    static func fields(_ record: InstallRecord, configuration: HeraldConfiguration) -> [(key: String, value: JSON)] {
        let device = configuration.device
        var pairs: [(key: String, value: JSON)] = [
            ("platform", .string(device.platform)), ("push_token", JSON(record.pushToken)),
            ("push_token_type", .string(configuration.pushTokenType)),
        ]
        if let environment = configuration.apnsEnvironment { pairs.append(("apns_environment", .string(environment))) }
        pairs.append(contentsOf: [
            ("app_version", .string(device.appVersion)), ("os_version", .string(device.osVersion)),
            ("device_model", .string(device.deviceModel)), ("locale", .string(device.locale)),
            ("timezone", .string(device.timezone)), ("sdk_version", .string(configuration.sdkVersion)),
            ("permissions", permissions(record.permissions)),
        ])
        if !record.segments.isEmpty { pairs.append(("segments", .array(record.segments.map { .string($0) }))) }
        return pairs
    }

    /// `POST /api/v1/installs`'s body.
    /// With the user it was identified as and their `identity_token`, when there is one: proof that lets the
    /// server give back a device it already knows for this install id (the same phone after a reinstall, or the
    /// Punchh app's device), rather than starting a new install.
    static func registration(_ record: InstallRecord, configuration: HeraldConfiguration) -> JSON {
        var proof: [(key: String, value: JSON)] = []
        if let externalID = record.externalID, let token = record.identityToken, !token.isEmpty {
            proof = [("external_id", .string(externalID)), ("identity_token", .string(token))]
        }
        return .object(
            [("api_key", .string(configuration.apiKey)), ("install_id", .string(record.installID))]
                + fields(record, configuration: configuration) + proof)
    }

    /// `PUT /api/v1/installs/current`'s body.
    static func update(_ record: InstallRecord, configuration: HeraldConfiguration) -> JSON {
        .object(fields(record, configuration: configuration))
    }

    /// `{"notifications","location"}`.
    static func permissions(_ permissions: Permissions) -> JSON {
        .object([
            ("notifications", .bool(permissions.notifications)), ("location", .string(permissions.location.rawValue)),
        ])
    }

    /// A digest of what an update would send, to tell whether anything changed.
    static func digest(_ record: InstallRecord, configuration: HeraldConfiguration) -> String {
        HexEncoding.encode(SHA256.hash(update(record, configuration: configuration).encoded))
    }

    /// A digest of the API key, kept instead of the key.
    static func keyDigest(_ apiKey: String) -> String { HexEncoding.encode(SHA256.hash(Array(apiKey.utf8))) }
}
