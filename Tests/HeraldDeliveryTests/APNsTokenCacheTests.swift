import HeraldDeliveryPorts
import HeraldCrypto
import HeraldDelivery
import HeraldHTTPClient
import HeraldModel
import Testing

@testable import HeraldAPNs

/// The provider token shared by every node and restart: signed once, taken from the store while young, renewed by
/// one node at a time. Times are seconds handed in.
@Suite("APNs provider token")
struct APNsTokenCacheTests {
    static let key = P256PrivateKey.generate()
    static let t0: Int64 = 1_800_000_000

    func credential(version: Int64 = 1, key: P256PrivateKey = key, topic: String = "com.example.app")
        -> APNsCredential
    {
        APNsCredential(
            keyID: "KEY1234567", teamID: "TEAM123456", topic: topic, environment: .production, key: key,
            version: Timestamp(milliseconds: version))
    }

    @Test("a restarted process (or another node) sends with the stored token instead of signing its own")
    func aRestartReusesTheStoredToken() throws {
        let shared = MemoryProviderTokenStore()
        var first = APNsTokenCache()
        let signed = try first.authorization(for: credential(), businessID: 7, shared: shared, now: Self.t0)
        #expect(signed.hasPrefix("bearer "))
        var restarted = APNsTokenCache()
        let reused = try restarted.authorization(
            for: credential(), businessID: 7, shared: shared, now: Self.t0 + 40 * 60)
        #expect(reused == signed, "40 minutes old: still the one Apple accepted")
        #expect(restarted.current(at: Self.t0 + 44 * 60) == signed)
        #expect(restarted.current(at: Self.t0 + 45 * 60) == nil, "renewed at 45 minutes of its own age, not the copy's")
    }

    @Test("past 45 minutes one node signs the next; another asking meanwhile keeps the old one a moment")
    func oneNodeRenews() throws {
        let shared = MemoryProviderTokenStore()
        var a = APNsTokenCache()
        var b = APNsTokenCache()
        let old = try a.authorization(for: credential(), businessID: 7, shared: shared, now: Self.t0)
        let renewal = Self.t0 + 46 * 60
        // Too old to take from the store: A takes the renewal and signs.
        let new = try a.authorization(for: credential(), businessID: 7, shared: shared, now: renewal)
        #expect(new != old)
        #expect(try b.authorization(for: credential(), businessID: 7, shared: shared, now: renewal + 1) == new)
        // While a renewal is held by a node that has not saved yet, the others use the old token up to 55 minutes.
        let shared2 = MemoryProviderTokenStore()
        var c = APNsTokenCache()
        var d = APNsTokenCache()
        let first = try c.authorization(for: credential(), businessID: 8, shared: shared2, now: Self.t0)
        #expect(
            try shared2.beginRenewal(
                .signingKey(credential().keyFingerprint, .apns),
                until: Timestamp(milliseconds: (Self.t0 + 60 * 60) * 1000),
                at: Timestamp(milliseconds: (Self.t0 + 46 * 60) * 1000)))
        #expect(try d.authorization(for: credential(), businessID: 8, shared: shared2, now: Self.t0 + 47 * 60) == first)
        #expect(throws: APNsTokenCache.Renewing.self, "too old to use, and another node is signing") {
            var e = APNsTokenCache()
            _ = try e.authorization(for: credential(), businessID: 8, shared: shared2, now: Self.t0 + 56 * 60)
        }
    }

    @Test("a token of a replaced key, or one Apple said expired, is not taken; the same key uploaded again keeps it")
    func staleTokensAreNotTaken() throws {
        let shared = MemoryProviderTokenStore()
        var a = APNsTokenCache()
        let old = try a.authorization(for: credential(version: 1), businessID: 7, shared: shared, now: Self.t0)
        var same = APNsTokenCache()
        let uploadedAgain = try same.authorization(
            for: credential(version: 2), businessID: 7, shared: shared, now: Self.t0 + 1)
        #expect(uploadedAgain == old, "the key is the same: so is its token")
        let newKey = P256PrivateKey.generate()
        var b = APNsTokenCache()
        let replaced = try b.authorization(
            for: credential(version: 3, key: newKey), businessID: 7, shared: shared, now: Self.t0 + 1)
        #expect(replaced != old, "the new key signs its own")
        var c = APNsTokenCache()
        let current = try c.authorization(
            for: credential(version: 3, key: newKey), businessID: 7, shared: shared, now: Self.t0 + 2)
        #expect(current == replaced)
        c.expired(current)
        let fresh = try c.authorization(
            for: credential(version: 3, key: newKey), businessID: 7, shared: shared, now: Self.t0 + 3)
        #expect(fresh != current, "not the stored copy Apple just refused")
    }

    @Test(
        "businesses holding one key send with one token; another key under the same id and team signs its own",
        .bug(id: "issue-40-8", "each business signed its own token for the key: Apple refused all but the first"))
    func oneTokenPerKey() throws {
        let shared = MemoryProviderTokenStore()
        var burger = APNsTokenCache()
        let first = try burger.authorization(
            for: credential(topic: "com.example.burger"), businessID: 1, shared: shared, now: Self.t0)
        var pizza = APNsTokenCache()
        let second = try pizza.authorization(
            for: credential(topic: "com.example.pizza"), businessID: 2, shared: shared, now: Self.t0 + 60)
        #expect(second == first, "the key's token, whichever business signed it")
        // Another .p8 claiming the same key id and team: its own fingerprint, its own token.
        let other = credential(key: P256PrivateKey.generate())
        #expect(other.keyFingerprint != credential().keyFingerprint)
        #expect(other.keyFingerprint.count == 64)
        var impostor = APNsTokenCache()
        let own = try impostor.authorization(for: other, businessID: 3, shared: shared, now: Self.t0 + 61)
        #expect(own != first)
        #expect(try shared.token(.signingKey(credential().keyFingerprint, .apns))?.token == first, "untouched")
    }

    @Test("until its key's token is stored, the one a business stored before tokens were kept by key is taken")
    func theTokenStoredByBusinessServesUntilTheKeysIs() throws {
        let shared = MemoryProviderTokenStore()
        let before = SharedProviderToken(
            token: "bearer before", credentialVersion: credential().version,
            issuedAt: Timestamp(milliseconds: Self.t0 * 1000),
            expiresAt: Timestamp(milliseconds: (Self.t0 + 3600) * 1000))
        try shared.save(before, for: .business(7, .apns))
        var cache = APNsTokenCache()
        let taken = try cache.authorization(for: credential(), businessID: 7, shared: shared, now: Self.t0 + 60)
        #expect(taken == "bearer before", "the one Apple took last, not a new one within its 20 minutes")
        var replaced = APNsTokenCache()
        let signed = try replaced.authorization(
            for: credential(version: 2), businessID: 7, shared: shared, now: Self.t0 + 60)
        #expect(signed != "bearer before", "a business's token of a credential since replaced is not taken")
        #expect(try shared.token(.signingKey(credential().keyFingerprint, .apns))?.token == signed)
        var another = APNsTokenCache()
        #expect(
            try another.authorization(for: credential(), businessID: 7, shared: shared, now: Self.t0 + 61) == signed,
            "once the key's token is stored, it is the one")
    }

    @Test(
        "Apple refusing a new provider token holds the credential, no push's attempt",
        .bug(id: "issue-35-3", "TooManyProviderTokenUpdates was retried as any 429: pushes failed after 8 attempts"))
    func tooManyProviderTokenUpdatesIsThrottled() {
        let body = Array(#"{"reason":"TooManyProviderTokenUpdates"}"#.utf8)
        let answer = APNsProvider.interpret(
            HTTPClientResponse(status: 429, body: body), apnsID: "a", at: Timestamp(milliseconds: Self.t0 * 1000))
        #expect(answer == .throttled(reason: "429 TooManyProviderTokenUpdates", retryAfter: .seconds(60)))
    }

    @Test("a token refused as one too many gives way to the stored one, if another is stored")
    func refusedTokenGivesWayToTheStoredOne() throws {
        let shared = MemoryProviderTokenStore()
        var a = APNsTokenCache()
        let stored = try a.authorization(for: credential(), businessID: 7, shared: shared, now: Self.t0)
        var own = APNsTokenCache()
        let read = APNsTokenCache.stored(for: credential(), businessID: 7, shared: shared)
        let sameAsRefused = own.adoptShared(read, refused: stored, now: Self.t0 + 5)
        #expect(!sameAsRefused, "the stored token is the one refused: nothing else to send with")
        let another = own.adoptShared(read, refused: "bearer mine", now: Self.t0 + 5)
        #expect(another)
        #expect(own.current(at: Self.t0 + 6) == stored)
    }

    @Test("while a fetch is out, a push keeps the held token (Apple still takes it) and none goes to the store again")
    func oneFetchAtATime() throws {
        let shared = MemoryProviderTokenStore()
        var cache = APNsTokenCache()
        let held = try cache.authorization(for: credential(), businessID: 7, shared: shared, now: Self.t0)
        let renewal = Self.t0 + 46 * 60
        guard case .fetch(let fetch) = try cache.next(at: renewal) else {
            Issue.record("past 45 minutes the token is fetched again")
            return
        }
        guard case .use(let meanwhile) = try cache.next(at: renewal + 1) else {
            Issue.record("a second fetch was handed out while the first was out")
            return
        }
        #expect(meanwhile == held)
        let fetched = try fetch.perform(for: credential(), businessID: 7, shared: shared, now: renewal)
        cache.fetched(fetched)
        #expect(cache.current(at: renewal + 2) == fetched.authorization)
        #expect(fetched.authorization != held)
        // A cache holding nothing Apple takes has nothing to send with while its fetch is out.
        var empty = APNsTokenCache()
        _ = try empty.next(at: Self.t0)
        #expect(throws: APNsTokenCache.Renewing.self) { try empty.next(at: Self.t0) }
        empty.fetched(nil)
        guard case .fetch = try empty.next(at: Self.t0) else {
            Issue.record("a failed fetch lets the next push fetch")
            return
        }
    }
}

extension APNsTokenCache {
    /// The token to use at `now` (seconds), for a cache no other thread shares: `next`, its fetch and `fetched` in a
    /// row, as `APNsProvider` does them around its lock.
    mutating func authorization(
        for credential: APNsCredential, businessID: Int64, shared: any ProviderTokenStore, now: Int64
    ) throws -> String {
        switch try next(at: now) {
        case .use(let authorization): return authorization
        case .fetch(let fetch):
            let result = Result { try fetch.perform(for: credential, businessID: businessID, shared: shared, now: now) }
            fetched(try? result.get())
            return try result.get().authorization
        }
    }
}
