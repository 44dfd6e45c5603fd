import HeraldDeliveryPorts
import HeraldDelivery
import HeraldModel
import HeraldDomain
import HeraldStore

/// The providers' tokens kept in the database, sealed (AES-256-GCM), so that every node and every restart sends
/// with the one the provider accepted; the renewal lease is this node's (`owner`). A key's token is sealed for that
/// key alone: a row moved to another key's place does not open.
package struct StoredProviderTokens: ProviderTokenStore {
    let store: Store
    let sealer: SecretSealer
    let owner: String

    /// Tokens in `store`, sealed with `sealer`, renewed by the node `owner`.
    package init(store: Store, sealer: SecretSealer, owner: String) {
        self.store = store
        self.sealer = sealer
        self.owner = owner
    }

    package func token(_ key: ProviderTokenKey) throws -> SharedProviderToken? {
        guard
            let stored = try store.read({ try $0.providerTokens.find(signer: Self.signer(key), platform: key.platform) }
            )
        else { return nil }
        // A token that will not open (the sealing key changed) is as good as none: a new one is made.
        guard let opened = try? sealer.open(stored.sealedToken, purpose: Self.purpose(key)) else { return nil }
        return SharedProviderToken(
            token: String(decoding: opened, as: UTF8.self), credentialVersion: stored.credentialVersion,
            issuedAt: stored.issuedAt, expiresAt: stored.expiresAt)
    }

    package func beginRenewal(_ key: ProviderTokenKey, until: Timestamp, at now: Timestamp) throws -> Bool {
        try store.transaction {
            try $0.providerTokens.beginRenewal(
                signer: Self.signer(key), platform: key.platform, owner: owner, until: until, at: now)
        }
    }

    package func save(_ token: SharedProviderToken, for key: ProviderTokenKey) throws {
        let sealed = try sealer.seal(Array(token.token.utf8), purpose: Self.purpose(key))
        try store.transaction {
            try $0.providerTokens.save(
                StoredProviderToken(
                    sealedToken: sealed, credentialVersion: token.credentialVersion, issuedAt: token.issuedAt,
                    expiresAt: token.expiresAt),
                signer: Self.signer(key), platform: key.platform)
        }
    }

    private static func signer(_ key: ProviderTokenKey) -> String {
        if let fingerprint = key.keyFingerprint { return ProviderTokenRecords.signer(keyFingerprint: fingerprint) }
        return ProviderTokenRecords.signer(businessID: key.businessID ?? 0)
    }

    /// A business's tokens are sealed as they were when stored by business (the rows moved over open as before); a
    /// key's, for that key.
    private static func purpose(_ key: ProviderTokenKey) -> SealPurpose {
        .providerToken(key.platform, signer: key.keyFingerprint == nil ? nil : signer(key))
    }
}
