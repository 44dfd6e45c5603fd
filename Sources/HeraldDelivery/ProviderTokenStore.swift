import HeraldModel
import Synchronization

/// A provider token shared by every node: APNs's signed JWT or FCM's OAuth access token, as it is sent.
public struct SharedProviderToken: Sendable, Equatable {
    /// The token as sent (`bearer …` for APNs, the access token for FCM). A secret: never logged.
    public var token: String
    /// The credential it was made with (its version): a token of a replaced credential is not used.
    public var credentialVersion: Timestamp
    /// When it was made.
    public var issuedAt: Timestamp
    /// When the provider stops accepting it.
    public var expiresAt: Timestamp

    /// A token.
    public init(token: String, credentialVersion: Timestamp, issuedAt: Timestamp, expiresAt: Timestamp) {
        self.token = token
        self.credentialVersion = credentialVersion
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}

/// Where the providers keep the tokens they send with, so that every node and every restart uses the one the
/// provider already accepted instead of making its own (Apple refuses a key's new token within 20 minutes of the
/// last: `TooManyProviderTokenUpdates`), and one node at a time makes the next. The database's (sealed) in a
/// server; `MemoryProviderTokenStore` in tests and for a provider on its own.
public protocol ProviderTokenStore: Sendable {
    /// The token stored for `businessID` on `platform`, if any.
    func token(businessID: Int64, platform: PushPlatform) throws -> SharedProviderToken?
    /// Asks to be the one node renewing that token until `until`; false while another holds the renewal.
    func beginRenewal(businessID: Int64, platform: PushPlatform, until: Timestamp, at now: Timestamp) throws -> Bool
    /// Stores `token` for every node, ending this node's renewal.
    func save(_ token: SharedProviderToken, businessID: Int64, platform: PushPlatform) throws
}

/// Provider tokens kept in this process only.
public final class MemoryProviderTokenStore: ProviderTokenStore {
    private let tokens = Mutex<[String: (token: SharedProviderToken?, renewingUntil: Timestamp?)]>([:])

    /// An empty store.
    public init() {}

    public func token(businessID: Int64, platform: PushPlatform) throws -> SharedProviderToken? {
        tokens.withLock { $0[Self.key(businessID, platform)]?.token ?? nil }
    }

    public func beginRenewal(businessID: Int64, platform: PushPlatform, until: Timestamp, at now: Timestamp) throws
        -> Bool
    {
        tokens.withLock { tokens in
            let key = Self.key(businessID, platform)
            if let renewing = tokens[key]?.renewingUntil, renewing > now { return false }
            tokens[key, default: (nil, nil)].renewingUntil = until
            return true
        }
    }

    public func save(_ token: SharedProviderToken, businessID: Int64, platform: PushPlatform) throws {
        tokens.withLock { $0[Self.key(businessID, platform)] = (token, nil) }
    }

    private static func key(_ businessID: Int64, _ platform: PushPlatform) -> String {
        "\(businessID)/\(platform.rawValue)"
    }
}
