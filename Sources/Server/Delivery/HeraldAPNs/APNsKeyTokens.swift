import HeraldDeliveryPorts
import HeraldDelivery
import Synchronization

/// The provider token of one APNs key in this process, shared by the credentials of every business holding that key
/// (`APNsCredential.keyFingerprint`): Apple refuses a key's new token within 20 minutes of the last, whichever
/// business it came from, so one token serves them all. An `APNsTokenCache` under a lock of its own, taken inside
/// the provider's lock of its entries, never the other way round.
final class APNsKeyTokens: Sendable {
    /// The key's fingerprint.
    let fingerprint: String
    private let cache = Mutex(APNsTokenCache())

    init(fingerprint: String) { self.fingerprint = fingerprint }

    /// What a push does at `now` (seconds) for its token (`APNsTokenCache.next`).
    func next(at now: Int64) throws -> APNsTokenCache.Next { try cache.withLock { try $0.next(at: now) } }

    /// A fetch handed out by `next` came back (`APNsTokenCache.fetched`).
    func fetched(_ fetched: APNsTokenCache.Fetched?) { cache.withLock { $0.fetched(fetched) } }

    /// Apple said `rejected` expired (`APNsTokenCache.expired`).
    func expired(_ rejected: String) { cache.withLock { $0.expired(rejected) } }

    /// Takes `stored` unless it is `refused` (`APNsTokenCache.adoptShared`).
    func adoptShared(_ stored: SharedProviderToken?, refused: String, now: Int64) -> Bool {
        cache.withLock { $0.adoptShared(stored, refused: refused, now: now) }
    }
}
