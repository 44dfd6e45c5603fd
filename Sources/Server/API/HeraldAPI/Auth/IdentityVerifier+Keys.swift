import HeraldCrypto
import HeraldHTTPServer
import HeraldModel
import HeraldStore

/// A business's identity keys as the admin API manages them: listed (never their text), added (the text shown
/// once), retired. Adding one beside the old is a rotation's overlap: both vouch until the old is retired; retiring
/// one is also how a leaked key is revoked.
extension IdentityVerifier {
    /// At most this many keys of a business vouch at once.
    static let maximumLiveKeys = 10

    /// One of a business's keys as listed.
    struct Listed: Sendable {
        let kid: String
        let createdAt: Timestamp
        /// When it stopped vouching; nil while it does.
        let retiredAt: Timestamp?
    }

    /// The keys of `business`, the original first, then the added ones oldest first.
    func keys(of business: Business) throws -> [Listed] {
        let stored = try store.read { try $0.identityKeys.all(businessID: business.id) }
        let original = stored.first { $0.kid == Self.originalKID }
        return [Listed(kid: Self.originalKID, createdAt: business.createdAt, retiredAt: original?.retiredAt)]
            + stored.filter { $0.kid != Self.originalKID }.map {
                Listed(kid: $0.kid, createdAt: $0.createdAt, retiredAt: $0.retiredAt)
            }
    }

    /// A new key of `business`, vouching from now on beside the others: its `kid` and its text (to show once; only
    /// its sealed form is kept). 422 while `maximumLiveKeys` vouch already.
    func addKey(to business: Business) throws -> (kid: String, key: String, createdAt: Timestamp) {
        let now = clock.now()
        let kid = "ik_" + Hex.encode(SecureRandom.bytes(count: 8))
        let key = Base64URL.encode(SecureRandom.bytes(count: 32))
        let sealed = try sealer.seal(Array(key.utf8), purpose: Self.sealPurpose(businessID: business.id, kid: kid))
        try store.transaction { tx in
            // Locked: two nodes adding at once count each other's key.
            _ = try tx.businesses.lock(id: business.id)
            let stored = try tx.identityKeys.all(businessID: business.id)
            let originalLive = !stored.contains { $0.kid == Self.originalKID }
            let live = stored.filter { $0.retiredAt == nil }.count + (originalLive ? 1 : 0)
            guard live < Self.maximumLiveKeys else {
                throw HTTPError.invalid(
                    "base", "\(Self.maximumLiveKeys) identity keys vouch already: retire one before adding another")
            }
            try tx.identityKeys.insert(
                StoredIdentityKey(businessID: business.id, kid: kid, sealedKey: sealed, createdAt: now, retiredAt: nil))
        }
        return (kid, key, now)
    }

    /// Retires the key `kid` of `business`: from the commit on it vouches for nobody, on every node. A key retired
    /// already stays as it was; 404 on `kid` for a key the business never had.
    func retireKey(_ kid: String, of business: Business) throws {
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
            guard stored != nil else { throw IdentityVerifier.unknownKey }
            try tx.identityKeys.retire(businessID: business.id, kid: kid, at: now)
        }
    }
}
