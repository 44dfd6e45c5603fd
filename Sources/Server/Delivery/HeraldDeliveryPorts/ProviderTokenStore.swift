import HeraldModel
import Synchronization

/// A provider token shared by every node: APNs's signed JWT or FCM's OAuth access token, as it is sent.
package struct SharedProviderToken: Sendable, Equatable {
    /// The token as sent (`bearer …` for APNs, the access token for FCM). A secret: never logged.
    package var token: String
    /// The credential it was made with (its version): a business's token of a replaced credential is not used (a
    /// key's token serves every credential holding the key, whatever its version).
    package var credentialVersion: Timestamp
    /// When it was made.
    package var issuedAt: Timestamp
    /// When the provider stops accepting it.
    package var expiresAt: Timestamp

    /// A token.
    package init(token: String, credentialVersion: Timestamp, issuedAt: Timestamp, expiresAt: Timestamp) {
        self.token = token
        self.credentialVersion = credentialVersion
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}

/// Whose provider token it is: one business's credential on a platform (FCM's access token), or one signing key,
/// whose token every business holding that key shares (APNs's JWT: Apple refuses a key's new token within 20 minutes
/// of the last, whichever business it came from).
package struct ProviderTokenKey: Hashable, Sendable {
    /// The platform.
    package let platform: PushPlatform
    /// The business, for a token of its own credential.
    package let businessID: Int64?
    /// The signing key's fingerprint, for a token of that key.
    package let keyFingerprint: String?

    /// The token of `businessID`'s own credential on `platform`.
    package static func business(_ businessID: Int64, _ platform: PushPlatform) -> Self {
        Self(platform: platform, businessID: businessID, keyFingerprint: nil)
    }

    /// The token of the key with fingerprint `keyFingerprint` on `platform`, shared by every business holding it.
    package static func signingKey(_ keyFingerprint: String, _ platform: PushPlatform) -> Self {
        Self(platform: platform, businessID: nil, keyFingerprint: keyFingerprint)
    }
}

/// Where the providers keep the tokens they send with, so that every node and every restart uses the one the
/// provider already accepted instead of making its own (Apple refuses a key's new token within 20 minutes of the
/// last: `TooManyProviderTokenUpdates`), and one node at a time makes the next. The database's (sealed) in a
/// server; `MemoryProviderTokenStore` in tests and for a provider on its own.
package protocol ProviderTokenStore: Sendable {
    /// The token stored for `key`, if any.
    func token(_ key: ProviderTokenKey) throws -> SharedProviderToken?
    /// Asks to be the one node renewing the token of `key` until `until`; false while another holds the renewal.
    func beginRenewal(_ key: ProviderTokenKey, until: Timestamp, at now: Timestamp) throws -> Bool
    /// Stores `token` for `key`, for every node, ending this node's renewal.
    func save(_ token: SharedProviderToken, for key: ProviderTokenKey) throws
}

/// Provider tokens kept in this process only.
package final class MemoryProviderTokenStore: ProviderTokenStore {
    private let tokens = Mutex<[ProviderTokenKey: (token: SharedProviderToken?, renewingUntil: Timestamp?)]>([:])

    /// An empty store.
    package init() {}

    package func token(_ key: ProviderTokenKey) throws -> SharedProviderToken? {
        tokens.withLock { $0[key]?.token ?? nil }
    }

    package func beginRenewal(_ key: ProviderTokenKey, until: Timestamp, at now: Timestamp) throws -> Bool {
        tokens.withLock { tokens in
            if let renewing = tokens[key]?.renewingUntil, renewing > now { return false }
            tokens[key, default: (nil, nil)].renewingUntil = until
            return true
        }
    }

    package func save(_ token: SharedProviderToken, for key: ProviderTokenKey) throws {
        tokens.withLock { $0[key] = (token, nil) }
    }
}
