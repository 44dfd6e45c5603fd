import HeraldDelivery
import HeraldModel
import Synchronization

/// The OAuth2 access tokens of the businesses' service accounts: a token is fetched once for every send waiting on
/// it, used until shortly before it expires, and renewed from its refresh point by one fetch while sends go on using
/// it until it expires — a renewal never holds a send back. A fetch that fails answers the sends waiting on it; a
/// renewal that fails leaves the current token serving, and the next send after a pause tries again. Time is the
/// clock's it is given.
///
/// ```swift
/// switch cache.next(for: businessID, loaded: credential, waiter: send) {
/// case .use(let token): send(.success(token))
/// case .useAndRenew(let token, let credential, let epoch): fetch(credential, epoch); send(.success(token))
/// case .fetch(let credential, let epoch): fetch(credential, epoch)   // `send` is answered when it ends:
/// case .wait: break                       // for waiter in cache.fetched(businessID, epoch: epoch, result, …)
/// case .fail(let result): send(.failure(.init(result)))
/// }
/// ```
final class FCMTokenCache: Sendable {
    /// A send waiting for a token.
    typealias Waiter = @Sendable (Result<String, PushResult.Failure>) -> Void

    /// What a send does for its token.
    enum Next {
        /// Use this token.
        case use(String)
        /// Use this token, and fetch its successor (`fetched` hears how that went).
        case useAndRenew(String, FCMCredential, epoch: Int)
        /// A fetch is running: the waiter is answered when it ends.
        case wait
        /// Fetch a token (`fetched` hears how that went, and answers the waiter).
        case fetch(FCMCredential, epoch: Int)
        /// No token can be had now.
        case fail(PushResult)
    }

    private enum TokenState {
        case none
        case fetching(waiters: [Waiter])
        /// A token in use. From `refreshAt` one fetch of its successor runs (`renewing`) while sends go on using it
        /// until `expiresAt`.
        case ready(token: String, refreshAt: Timestamp, expiresAt: Timestamp, renewing: Bool)
    }

    private struct Entry {
        var credential: FCMCredential
        /// Which loading of the credential this is: a fetch started for an earlier one must not touch it.
        let epoch: Int
        var token: TokenState = .none
    }

    private let clock: WallClock
    private let refreshMargin: Duration
    private let entries = Mutex<[Int64: Entry]>([:])
    private let epochs = Atomic<Int>(0)

    /// Tokens renewed `refreshMargin` before they expire (at most half their lifetime), on `clock`.
    init(clock: WallClock, refreshMargin: Duration) {
        self.clock = clock
        self.refreshMargin = refreshMargin
    }

    /// The service account held for `businessID`, if one is: without one, the caller loads it and hands it to
    /// `next`.
    func credential(for businessID: Int64) -> FCMCredential? {
        entries.withLock { $0[businessID]?.credential }
    }

    /// What a send for `businessID` does now for its token; `loaded` is the service account to hold when none is.
    func next(for businessID: Int64, loaded: FCMCredential?, waiter: @escaping Waiter) -> Next {
        let now = clock.now()
        return entries.withLock { entries -> Next in
            if entries[businessID] == nil, let loaded {
                entries[businessID] = Entry(credential: loaded, epoch: epochs.add(1, ordering: .relaxed).newValue)
            }
            guard var entry = entries[businessID] else {
                return .fail(.retryable(reason: "credential replaced", retryAfter: nil))
            }
            switch entry.token {
            case .ready(let token, let refreshAt, let expiresAt, let renewing) where now < expiresAt:
                if now < refreshAt || renewing { return .use(token) }
                entry.token = .ready(token: token, refreshAt: refreshAt, expiresAt: expiresAt, renewing: true)
                entries[businessID] = entry
                return .useAndRenew(token, entry.credential, epoch: entry.epoch)
            case .fetching(var waiters):
                waiters.append(waiter)
                entry.token = .fetching(waiters: waiters)
                entries[businessID] = entry
                return .wait
            default:
                entry.token = .fetching(waiters: [waiter])
                entries[businessID] = entry
                return .fetch(entry.credential, epoch: entry.epoch)
            }
        }
    }

    /// A fetch for the credential of `epoch` ended with `result` (a token valid for `expiresIn` seconds, or a
    /// failure): returns the sends waiting on it, to be answered with `result`. A fetch for a credential since
    /// replaced changes nothing (its waiters were answered when it was forgotten).
    func fetched(
        _ businessID: Int64, epoch: Int, _ result: Result<String, PushResult.Failure>, expiresIn: Int64 = 3600
    ) -> [Waiter] {
        let now = clock.now()
        return entries.withLock { entries -> [Waiter] in
            guard var entry = entries[businessID], entry.epoch == epoch else { return [] }
            var waiters: [Waiter] = []
            switch entry.token {
            case .fetching(let pending):
                waiters = pending
                entry.token = .none
            case .ready(let current, _, let expiresAt, true):
                // A renewal that failed: the current token serves on, and the next send after a pause tries again.
                let again = min(expiresAt, now.adding(.seconds(10)))
                entry.token = .ready(token: current, refreshAt: again, expiresAt: expiresAt, renewing: false)
            default:
                break
            }
            if case .success(let token) = result {
                let margin = min(refreshMargin, .seconds(expiresIn / 2))
                let expiresAt = now.adding(.seconds(expiresIn))
                entry.token = .ready(
                    token: token, refreshAt: expiresAt.adding(.zero - margin),
                    expiresAt: expiresAt.adding(.zero - min(.seconds(30), margin / 2)), renewing: false)
            }
            entries[businessID] = entry
            return waiters
        }
    }

    /// Google refused `token` (expired early, revoked): the next send fetches another, unless one replaced it.
    func rejected(_ businessID: Int64, token: String) {
        entries.withLock { entries in
            if case .ready(let current, _, _, _) = entries[businessID]?.token, current == token {
                entries[businessID]!.token = .none
            }
        }
    }

    /// Forgets the service account of `businessID` and its token (replaced); returns the sends waiting on a fetch
    /// for it, to be answered (to be retried).
    func forget(_ businessID: Int64) -> [Waiter] {
        let removed = entries.withLock { $0.removeValue(forKey: businessID) }
        if case .fetching(let waiters) = removed?.token { return waiters }
        return []
    }

    /// Whether the service account held for `businessID` is `version` or older.
    func holds(_ businessID: Int64, versionAtMost version: Timestamp) -> Bool {
        entries.withLock { $0[businessID].map { $0.credential.version <= version } ?? false }
    }
}
