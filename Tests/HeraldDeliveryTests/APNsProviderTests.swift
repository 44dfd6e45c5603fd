import HeraldDeliveryPorts
import Foundation
import HeraldAPNs
import HeraldCrypto
import HeraldDelivery
import HeraldHTTPClient
import HeraldModel
import HeraldObservability
import Synchronization
import Testing

/// The APNs provider's own bookkeeping, without Apple: nothing listens at the URL it sends to.
@Suite("APNs provider")
struct APNsProviderTests {
    @Test("a business's client unused for the idle lifetime is shut down, and made again by its next push")
    func idleClientsAreShutDown() throws {
        let now = Clock()
        let made = Made()
        let key = P256PrivateKey.generate()
        var configuration = APNsProvider.Configuration(baseURLOverride: "http://127.0.0.1:9")
        configuration.idleClientLifetime = .seconds(600)
        configuration.requestTimeout = .seconds(2)
        let provider = APNsProvider(
            makeClient: {
                made.count.add(1, ordering: .relaxed)
                return try HTTP2Client()
            },
            credential: { _ in
                APNsCredential(
                    keyID: "KEY1234567", teamID: "TEAM123456", topic: "com.example.app", environment: .production,
                    key: key, version: Timestamp(milliseconds: 0))
            },
            clock: WallClock { now.value }, configuration: configuration, logger: .disabled)
        defer { provider.shutdown() }

        func send(_ businessID: Int64) {
            let answered = DispatchSemaphore(value: 0)
            provider.send(
                OutgoingPush(
                    deliveryID: 1, businessID: businessID, token: String(repeating: "a", count: 64),
                    apnsID: UUID().uuidString,
                    content: PushContent(notificationID: 1, title: "Hi", body: "There"))
            ) { _ in answered.signal() }
            answered.wait()
        }

        send(1)
        send(1)
        #expect(made.count.load(ordering: .relaxed) == 1, "one client per business, kept while used")
        now.advance(seconds: 300)
        send(2)
        #expect(made.count.load(ordering: .relaxed) == 2)
        now.advance(seconds: 400)  // business 1 idle for 700 s, business 2 for 400 s
        send(2)
        send(1)
        #expect(made.count.load(ordering: .relaxed) == 3, "business 1's client was shut down and made again")
        send(2)
        #expect(made.count.load(ordering: .relaxed) == 3, "business 2's was still in use")
    }

    @Test(
        "a shared store slow to answer holds up the pushes of the business it is asked about, not another's",
        .bug(id: "review-3-1", "the store was read and written under the lock every business's pushes take"))
    func aSlowStoreHoldsUpNoOtherBusiness() throws {
        // Each business its own key (businesses holding one key share its token, and wait for it together).
        let keys = [Int64(1): P256PrivateKey.generate(), 2: P256PrivateKey.generate()]
        @Sendable func credential(_ businessID: Int64) -> APNsCredential {
            APNsCredential(
                keyID: "KEY123456\(businessID)", teamID: "TEAM123456", topic: "com.example.app",
                environment: .production,
                key: keys[businessID]!, version: Timestamp(milliseconds: 0))
        }
        var configuration = APNsProvider.Configuration(baseURLOverride: "http://127.0.0.1:9")
        configuration.requestTimeout = .seconds(2)
        let store = GatedTokenStore(gated: .signingKey(credential(1).keyFingerprint, .apns))
        let provider = APNsProvider(
            makeClient: { try HTTP2Client() },
            credential: { credential($0) },
            clock: WallClock { Timestamp(milliseconds: 1_800_000_000_000) }, configuration: configuration,
            tokens: store, logger: .disabled)
        defer { provider.shutdown() }

        func send(_ businessID: Int64) -> DispatchSemaphore {
            let answered = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                provider.send(
                    OutgoingPush(
                        deliveryID: businessID, businessID: businessID, token: String(repeating: "a", count: 64),
                        apnsID: UUID().uuidString, content: PushContent(notificationID: 1, title: "Hi", body: "There"))
                ) { _ in answered.signal() }
            }
            return answered
        }

        let first = send(1)
        #expect(store.entered.wait(timeout: .now() + 10) == .success, "business 1's push reads the store")
        let second = send(2)
        let secondAnswered = second.wait(timeout: .now() + 10)
        store.release()
        #expect(secondAnswered == .success, "business 2's push went on while business 1's waited on the store")
        #expect(first.wait(timeout: .now() + 10) == .success)
        if secondAnswered != .success { _ = second.wait(timeout: .now() + 10) }
    }
}

/// Provider tokens in memory, whose read of one token waits until `release` is called.
private final class GatedTokenStore: ProviderTokenStore {
    let entered = DispatchSemaphore(value: 0)
    private let gate = DispatchSemaphore(value: 0)
    private let gated: ProviderTokenKey
    private let tokens = MemoryProviderTokenStore()

    init(gated: ProviderTokenKey) { self.gated = gated }

    func release() { gate.signal() }

    func token(_ key: ProviderTokenKey) throws -> SharedProviderToken? {
        if key == gated {
            entered.signal()
            gate.wait()
        }
        return try tokens.token(key)
    }

    func beginRenewal(_ key: ProviderTokenKey, until: Timestamp, at now: Timestamp) throws -> Bool {
        try tokens.beginRenewal(key, until: until, at: now)
    }

    func save(_ token: SharedProviderToken, for key: ProviderTokenKey) throws {
        try tokens.save(token, for: key)
    }
}

private final class Clock: Sendable {
    private let milliseconds = Atomic<Int64>(1_800_000_000_000)
    var value: Timestamp { Timestamp(milliseconds: milliseconds.load(ordering: .relaxed)) }
    func advance(seconds: Int64) { milliseconds.add(seconds * 1000, ordering: .relaxed) }
}

private final class Made: Sendable {
    let count = Atomic<Int>(0)
}
