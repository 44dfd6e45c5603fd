import HeraldCrypto
import HeraldDelivery
import HeraldModel
import HeraldTesting
import Synchronization
import Testing

@testable import HeraldFCM

/// The FCM access tokens' state on a clock the test moves: one fetch for every waiting send, renewal beside the
/// sends from the refresh point, a failed renewal leaving the token in use, and a replaced credential's fetch
/// ignored. No network: the test plays the token endpoint.
@Suite("FCM token cache")
struct FCMTokenCacheTests {
    static let key = RSAPrivateKey.generate()

    static func credential(version: Int64 = 1) -> FCMCredential {
        FCMCredential(
            projectID: "demo", clientEmail: "herald@demo.iam.gserviceaccount.com",
            tokenURI: "https://oauth2.example/token", privateKeyID: nil, key: key,
            version: Timestamp(milliseconds: version))
    }

    /// Sends' outcomes, in the order they were answered.
    final class Answers: Sendable {
        private let results = Mutex<[Result<String, PushResult.Failure>]>([])

        func waiter() -> FCMTokenCache.Waiter { { result in self.results.withLock { $0.append(result) } } }
        var tokens: [String?] { results.withLock { $0.map { try? $0.get() } } }
        var count: Int { results.withLock { $0.count } }
    }

    let clock = ManualClock()
    let cache: FCMTokenCache
    let answers = Answers()

    init() {
        cache = FCMTokenCache(clock: clock.wallClock, refreshMargin: .seconds(300))
    }

    /// Asks for a token for business 1 as a send does, loading the credential when none is held.
    func next(_ credential: FCMCredential = credential()) -> FCMTokenCache.Next {
        cache.next(
            for: 1, loaded: cache.credential(for: 1) == nil ? credential : nil, waiter: answers.waiter())
    }

    /// The token a `.use` hands over (nil for anything else).
    func used(_ next: FCMTokenCache.Next) -> String? {
        if case .use(let token) = next { return token }
        return nil
    }

    /// The epoch a `.fetch` or `.useAndRenew` asks to fetch for (nil for anything else).
    func fetchEpoch(_ next: FCMTokenCache.Next) -> Int? {
        switch next {
        case .fetch(_, let epoch), .useAndRenew(_, _, let epoch): epoch
        default: nil
        }
    }

    /// Plays the endpoint: the fetch of `epoch` ends with `result`, and its waiters are answered.
    func fetched(_ epoch: Int, _ result: Result<String, PushResult.Failure>, expiresIn: Int64 = 3600) {
        for waiter in cache.fetched(1, epoch: epoch, result, expiresIn: expiresIn) { waiter(result) }
    }

    /// The first send's fetch, answered with `token`: its epoch.
    func holding(_ token: String, expiresIn: Int64 = 3600) throws -> Int {
        let epoch = try #require(fetchEpoch(next()))
        fetched(epoch, .success(token), expiresIn: expiresIn)
        return epoch
    }

    @Test("the first sends share one fetch, and are answered with its token when it comes")
    func oneFetchForEveryWaitingSend() throws {
        let epoch = try #require(fetchEpoch(next()))
        for _ in 0..<3 {
            guard case .wait = next() else {
                Issue.record("a second fetch started")
                return
            }
        }
        #expect(answers.count == 0)
        fetched(epoch, .success("token-1"))
        #expect(answers.tokens == ["token-1", "token-1", "token-1", "token-1"])
        #expect(used(next()) == "token-1")
    }

    @Test("from the refresh point one renewal runs while sends go on with the current token, which it then replaces")
    func renewalNeverHoldsASendBack() throws {
        _ = try holding("token-1")
        clock.advance(by: .seconds(3299))
        #expect(used(next()) == "token-1", "before the refresh point (an hour less the margin)")
        clock.advance(by: .seconds(1))
        guard case .useAndRenew("token-1", _, let renewal) = next() else {
            Issue.record("no renewal at the refresh point")
            return
        }
        #expect(used(next()) == "token-1", "one renewal at a time; sends keep the token meanwhile")
        fetched(renewal, .success("token-2"))
        #expect(used(next()) == "token-2")
    }

    @Test("a token is not used in its last 30 seconds: a send then waits for a new one")
    func anExpiringTokenIsFetchedAgain() throws {
        let epoch = try holding("token-1")
        clock.advance(by: .seconds(3570))
        #expect(fetchEpoch(next()) == epoch, "a fetch, not the old token")
    }

    @Test("a short-lived token is renewed at half its life at the latest")
    func theMarginIsAtMostHalfTheLifetime() throws {
        _ = try holding("short", expiresIn: 60)
        clock.advance(by: .seconds(29))
        #expect(used(next()) == "short")
        clock.advance(by: .seconds(1))
        guard case .useAndRenew("short", _, _) = next() else {
            Issue.record("no renewal at half its life")
            return
        }
        clock.advance(by: .seconds(15))
        #expect(used(next()) == nil, "expired 15 s early (half the margin)")
    }

    @Test("a failed renewal leaves the token in use, and the next send ten seconds on tries again")
    func aFailedRenewalKeepsTheToken() throws {
        _ = try holding("token-1")
        clock.advance(by: .seconds(3300))
        let renewal = try #require(fetchEpoch(next()))
        fetched(renewal, .failure(.init(.retryable(reason: "503", retryAfter: nil))))
        #expect(used(next()) == "token-1")
        clock.advance(by: .seconds(9))
        #expect(used(next()) == "token-1", "not again at once")
        clock.advance(by: .seconds(1))
        guard case .useAndRenew("token-1", _, _) = next() else {
            Issue.record("no second renewal")
            return
        }
    }

    @Test("a failed fetch answers every waiting send with its failure; the next send fetches again")
    func aFailedFetchAnswersTheWaiters() throws {
        let epoch = try #require(fetchEpoch(next()))
        _ = next()
        let refusal = PushResult.credentialRejected(reason: "invalid_grant")
        fetched(epoch, .failure(.init(refusal)))
        #expect(answers.tokens == [nil, nil])
        #expect(fetchEpoch(next()) == epoch)
    }

    @Test("a token Google refused is dropped, unless another has replaced it")
    func aRejectedTokenIsDropped() throws {
        _ = try holding("token-1")
        cache.rejected(1, token: "token-1")
        let again = try #require(fetchEpoch(next()))
        fetched(again, .success("token-2"))
        cache.rejected(1, token: "token-1")
        #expect(used(next()) == "token-2")
    }

    @Test("a replaced credential is forgotten: its waiting sends are handed back, and its late fetch changes nothing")
    func aReplacedCredentialIsForgotten() throws {
        let old = try #require(fetchEpoch(next()))
        #expect(cache.holds(1, versionAtMost: Timestamp(milliseconds: 1)))
        let waiting = cache.forget(1)
        #expect(waiting.count == 1)
        #expect(cache.credential(for: 1) == nil)
        let new = try #require(fetchEpoch(next(Self.credential(version: 2))))
        #expect(new != old)
        #expect(!cache.holds(1, versionAtMost: Timestamp(milliseconds: 1)))
        fetched(old, .success("for the old credential"))
        #expect(answers.count == 0, "the old fetch answers no one")
        guard case .wait = next() else {
            Issue.record("the old fetch's token was kept")
            return
        }
        fetched(new, .success("token-2"))
        #expect(used(next()) == "token-2")
    }
}
