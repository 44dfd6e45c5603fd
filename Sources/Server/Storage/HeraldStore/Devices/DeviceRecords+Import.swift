import HeraldModel

extension DeviceRecords {
    /// The devices of `businessID` with these keys.
    package func find(businessID: Int64, keys: [String]) throws -> [Device] {
        guard !keys.isEmpty else { return [] }
        return try tx.connection.rows(
            tx.rows(Self.columns, of: "devices", where: "business_id = \(businessID)", "device_key", in: keys)
        ).map(Self.decode)
    }

    /// The devices of `businessID` holding any of these tokens of `platform`.
    package func find(businessID: Int64, platform: PushPlatform, tokens: [String]) throws -> [Device] {
        guard !tokens.isEmpty else { return [] }
        let business: SQLQuery = "business_id = \(businessID) AND platform = \(platform.rawValue)"
        return try tx.connection.rows(tx.rows(Self.columns, of: "devices", where: business, "token", in: tokens))
            .map(Self.decode)
    }

    /// Creates a device known from an import (no install details: the SDK adds them if it registers it).
    package func insertImported(
        businessID: Int64, key: String, userID: Int64?, platform: PushPlatform, token: String, at now: Timestamp
    ) throws -> Device {
        try insertImported([
            Device(
                id: 0, businessID: businessID, userID: userID, deviceKey: key, platform: platform, token: token,
                tokenUpdatedAt: now, userAgent: nil, createdAt: now, updatedAt: now)
        ])[0]
    }

    /// Creates devices known from an import (their ids ignored; no install details), many a statement; returns
    /// them with their ids, in the order given, each read back by its key (one business's devices, keys of their
    /// own).
    package func insertImported(_ devices: [Device]) throws -> [Device] {
        guard !devices.isEmpty else { return [] }
        var ids: [String: Int64] = [:]
        ids.reserveCapacity(devices.count)
        try tx.connection.insertRows(
            into: "devices",
            columns: [
                "business_id", "user_id", "device_key", "platform", "token", "token_updated_at", "created_at",
                "updated_at",
            ],
            devices.map { device in
                [
                    device.businessID.sqlValue, device.userID.sqlValue, device.deviceKey.sqlValue,
                    device.platform.rawValue.sqlValue, device.token.sqlValue, device.tokenUpdatedAt.sqlValue,
                    device.createdAt.sqlValue, device.updatedAt.sqlValue,
                ]
            }, returning: "id, device_key"
        ) { ids[$0.text(1)] = $0.int(0) }
        return try devices.map { device in
            guard let id = ids[device.deviceKey] else {
                throw StoreError(.database, "an imported device came back without its id")
            }
            var created = device
            created.id = id
            created.install = nil
            return created
        }
    }
}
