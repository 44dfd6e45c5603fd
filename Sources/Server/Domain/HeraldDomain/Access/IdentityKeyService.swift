import HeraldCrypto
import HeraldModel
import HeraldStore

/// A business's identity keys, which vouch for the external ids its backend signs (the API's `IdentityVerifier`
/// checks the tokens). Every business has its original key (`kid` `original`), derived from the server's own key and
/// the business: nothing to store, the same on every node and every restart. Keys added since are random, sealed in
/// the store and shown once. Each vouches until it is retired; the store is read at every check, so a key retired on
/// one node vouches for nobody on any. Adding one beside the old is a rotation's overlap; retiring one is also how a
/// leaked key is revoked.
///
/// ```swift
/// let key = keys.originalKey(for: business.id)              // for the business's backend
/// let text = try keys.liveKey("ik_…", of: business.id)      // nil once retired
/// ```
package struct IdentityKeyService: Sendable {
    let store: Store
    let sealer: SecretSealer
    let clock: WallClock

    /// The `kid` of the original key.
    package static let originalKID = "original"
    /// At most this many keys of a business vouch at once.
    package static let maximumLiveKeys = 10
    /// The refusal of a `kid` the business has no key of (404 on `kid`).
    package static let unknownKey = DomainError(.notFound, field: "kid", "is no identity key of this business")

    /// One of a business's keys as listed (never its text).
    package struct Listed: Sendable {
        /// Its name.
        package let kid: String
        /// When it was made.
        package let createdAt: Timestamp
        /// When it stopped vouching; nil while it does.
        package let retiredAt: Timestamp?
    }

    /// The keys in `store`, sealed with `sealer`, dated by `clock`.
    package init(store: Store, sealer: SecretSealer, clock: WallClock) {
        self.store = store
        self.sealer = sealer
        self.clock = clock
    }

    /// The business's original identity key: 32 bytes, base64url (43 characters). Its UTF-8 text is the HMAC key.
    package func originalKey(for businessID: Int64) -> String {
        Base64URL.encode(sealer.authenticationCode(for: Array(String(businessID).utf8), purpose: .originalIdentityKey))
    }

    /// The text of the key `kid` of `businessID` while it vouches; nil when it is unknown or retired.
    package func liveKey(_ kid: String, of businessID: Int64) throws -> String? {
        let stored = try store.read { try $0.identityKeys.find(businessID: businessID, kid: kid) }
        guard stored?.retiredAt == nil else { return nil }
        if kid == Self.originalKID { return originalKey(for: businessID) }
        guard let sealed = stored?.sealedKey,
            let opened = try? sealer.open(sealed, purpose: .identityKey(businessID: businessID, kid: kid))
        else { return nil }
        return String(decoding: opened, as: UTF8.self)
    }

    /// The keys of `business`, the original first, then the added ones oldest first.
    package func keys(of business: Business) throws -> [Listed] {
        let stored = try store.read { try $0.identityKeys.all(businessID: business.id) }
        let original = stored.first { $0.kid == Self.originalKID }
        return [Listed(kid: Self.originalKID, createdAt: business.createdAt, retiredAt: original?.retiredAt)]
            + stored.filter { $0.kid != Self.originalKID }.map {
                Listed(kid: $0.kid, createdAt: $0.createdAt, retiredAt: $0.retiredAt)
            }
    }

    /// A new key of `business`, vouching from now on beside the others: its `kid` and its text (to show once; only
    /// its sealed form is kept). Refused (on `base`) while `maximumLiveKeys` vouch already.
    package func addKey(to business: Business) throws -> (kid: String, key: String, createdAt: Timestamp) {
        let now = clock.now()
        let kid = "ik_" + Hex.encode(SecureRandom.bytes(count: 8))
        let key = Base64URL.encode(SecureRandom.bytes(count: 32))
        let sealed = try sealer.seal(Array(key.utf8), purpose: .identityKey(businessID: business.id, kid: kid))
        try store.transaction { tx in
            // Locked: two nodes adding at once count each other's key.
            _ = try tx.businesses.lock(id: business.id)
            let stored = try tx.identityKeys.all(businessID: business.id)
            let originalLive = !stored.contains { $0.kid == Self.originalKID }
            let live = stored.filter { $0.retiredAt == nil }.count + (originalLive ? 1 : 0)
            guard live < Self.maximumLiveKeys else {
                throw DomainError(
                    .invalid, field: "base",
                    "\(Self.maximumLiveKeys) identity keys vouch already: retire one before adding another")
            }
            try tx.identityKeys.insert(
                StoredIdentityKey(businessID: business.id, kid: kid, sealedKey: sealed, createdAt: now, retiredAt: nil))
        }
        return (kid, key, now)
    }

    /// Retires the key `kid` of `business`: from the commit on it vouches for nobody, on every node. A key retired
    /// already stays as it was; `unknownKey` for a key the business never had.
    package func retireKey(_ kid: String, of business: Business) throws {
        let now = clock.now()
        try store.transaction { tx in
            _ = try tx.businesses.lock(id: business.id)
            let stored = try tx.identityKeys.find(businessID: business.id, kid: kid)
            if kid == Self.originalKID, stored == nil {
                try tx.identityKeys.insert(
                    StoredIdentityKey(
                        businessID: business.id, kid: kid, sealedKey: nil, createdAt: business.createdAt,
                        retiredAt: now))
                return
            }
            guard stored != nil else { throw Self.unknownKey }
            try tx.identityKeys.retire(businessID: business.id, kid: kid, at: now)
        }
    }
}
