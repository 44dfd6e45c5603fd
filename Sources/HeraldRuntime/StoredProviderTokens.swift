import HeraldDelivery
import HeraldModel
import HeraldServer
import HeraldStore

/// The providers' tokens kept in the database, sealed (AES-256-GCM), so that every node and every restart sends
/// with the one the provider accepted; the renewal lease is this node's (`owner`).
public struct StoredProviderTokens: ProviderTokenStore {
    let store: Store
    let sealer: SecretSealer
    let owner: String

    /// Tokens in `store`, sealed with `sealer`, renewed by the node `owner`.
    public init(store: Store, sealer: SecretSealer, owner: String) {
        self.store = store
        self.sealer = sealer
        self.owner = owner
    }

    public func token(businessID: Int64, platform: PushPlatform) throws -> SharedProviderToken? {
        guard let stored = try store.read({ try $0.providerTokens.find(businessID: businessID, platform: platform) })
        else { return nil }
        // A token that will not open (the sealing key changed) is as good as none: a new one is made.
        guard let opened = try? sealer.open(stored.sealedToken, purpose: Self.purpose(platform)) else { return nil }
        return SharedProviderToken(
            token: String(decoding: opened, as: UTF8.self), credentialVersion: stored.credentialVersion,
            issuedAt: stored.issuedAt, expiresAt: stored.expiresAt)
    }

    public func beginRenewal(businessID: Int64, platform: PushPlatform, until: Timestamp, at now: Timestamp) throws
        -> Bool
    {
        try store.transaction {
            try $0.providerTokens.beginRenewal(
                businessID: businessID, platform: platform, owner: owner, until: until, at: now)
        }
    }

    public func save(_ token: SharedProviderToken, businessID: Int64, platform: PushPlatform) throws {
        let sealed = try sealer.seal(Array(token.token.utf8), purpose: Self.purpose(platform))
        try store.transaction {
            try $0.providerTokens.save(
                StoredProviderToken(
                    sealedToken: sealed, credentialVersion: token.credentialVersion, issuedAt: token.issuedAt,
                    expiresAt: token.expiresAt),
                businessID: businessID, platform: platform)
        }
    }

    private static func purpose(_ platform: PushPlatform) -> String { "provider-token-" + platform.rawValue }
}
