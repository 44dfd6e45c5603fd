import HeraldModel

/// A device a campaign's audience reaches.
public struct AudienceTarget: Sendable, Equatable {
    /// The device.
    public var deviceID: Int64
    /// Its user, if anyone is signed in on it.
    public var userID: Int64?
    /// APNs or FCM.
    public var platform: PushPlatform
    /// Whether it has a push token now.
    public var hasToken: Bool
    /// Its IANA time zone, if the install said.
    public var timeZone: String?
    /// Whether the SDK registered it (it can pull, and draws FCM messages itself).
    public var isInstall: Bool

    /// A target.
    public init(
        deviceID: Int64, userID: Int64?, platform: PushPlatform, hasToken: Bool, timeZone: String?, isInstall: Bool
    ) {
        self.deviceID = deviceID
        self.userID = userID
        self.platform = platform
        self.hasToken = hasToken
        self.timeZone = timeZone
        self.isInstall = isInstall
    }
}

/// Who a campaign is for.
public enum Audience: Sendable, Equatable {
    /// Every device of the business.
    case all
    /// The devices of these users.
    case userIDs([Int64])
}

/// The devices an audience reaches, walked by id so that a fan-out can stop and resume anywhere.
public struct AudienceRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    private static let columns = "id, user_id, platform, token IS NOT NULL, timezone, workspace IS NOT NULL"

    private static func decode(_ row: SQLRow) -> AudienceTarget {
        AudienceTarget(
            deviceID: row.int(0), userID: row.optionalInt(1), platform: PushPlatform(row.text(2)),
            hasToken: row.bool(3), timeZone: row.optionalText(4), isInstall: row.bool(5))
    }

    /// Devices of `businessID` the audience reaches, ids above `cursor`, ascending, at most `limit`: live devices
    /// (a live install, or a device only the Punchh API knows) — or, with `sandboxOnly`, only the sandbox installs
    /// approved as test devices and seen in the last 30 days.
    public func targets(
        businessID: Int64, audience: Audience, sandboxOnly: Bool, after cursor: Int64, limit: Int, at now: Timestamp
    ) throws -> [AudienceTarget] {
        try tx.connection.rows(
            """
            SELECT \(raw: Self.columns) FROM devices
            WHERE business_id = \(businessID) AND id > \(cursor) \(workspace(sandboxOnly, now)) \(condition(audience))
            ORDER BY id LIMIT \(max(0, limit))
            """
        ).map(Self.decode)
    }

    /// How many devices of `businessID` the audience reaches.
    public func count(businessID: Int64, audience: Audience, sandboxOnly: Bool, at now: Timestamp) throws -> Int {
        Int(
            try tx.connection.scalar(
                """
                SELECT COUNT(*) FROM devices
                WHERE business_id = \(businessID) \(workspace(sandboxOnly, now)) \(condition(audience))
                """))
    }

    private func workspace(_ sandboxOnly: Bool, _ now: Timestamp) -> SQLQuery {
        sandboxOnly
            ? """
            AND workspace = 'sandbox' AND test_status = 'approved' AND last_seen_at >= \(now.adding(.seconds(-30 * 86_400)))
            """
            : "AND (workspace IS NULL OR workspace = 'live')"
    }

    private func condition(_ audience: Audience) -> SQLQuery {
        switch audience {
        case .all: return ""
        case .userIDs(let ids): return "AND user_id IN (\(list: ids))"
        }
    }
}
