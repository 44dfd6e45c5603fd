import Foundation
import HeraldHTTPServer
import HeraldTesting
import Synchronization
import Testing

@testable import HeraldAPI

/// Token buckets on sign-up, login and password checks per address, failed logins delayed per account and address,
/// mobile calls per business before signing in and per user after, device calls per install, each charged only
/// once the call is authenticated; 429 with `Retry-After` in Punchh's error shape; password hashing on a bounded
/// pool.
@Suite("Rate limits")
struct RateLimitTests {
    /// A clock a test moves by hand.
    final class Seconds: Sendable {
        let value = Mutex<Double>(1000)
        func advance(_ seconds: Double) { value.withLock { $0 += seconds } }
        var now: Double { value.withLock { $0 } }
    }

    @Test func aBucketRefusesPastItsBurstAndRefillsAtItsRate() {
        let clock = Seconds()
        let limiter = RateLimiter(.perMinute(3), now: { clock.now })
        #expect((0..<3).map { _ in limiter.take("k") } == [nil, nil, nil])
        #expect(limiter.take("k") == 20)  // one token every 20 s
        #expect(limiter.take("other") == nil)
        clock.advance(19)
        #expect(limiter.take("k") == 1)
        clock.advance(1)
        #expect(limiter.take("k") == nil)
        #expect(RateLimiter(.none).take("k") == nil)
    }

    @Test(.bug(id: "issue-40-5", "one client flooding with the app's public secret 429'd every login of the business"))
    func aSharedBudgetGivesEachMemberAFairShare() {
        let clock = Seconds()
        let limiter = FairShareLimiter(.perSecond(10), now: { clock.now })  // 20 at once, 10 a second
        // Alone, a member may take half the budget: 10 at once, 5 a second.
        #expect((0..<10).allSatisfy { _ in limiter.take(group: "b", member: "flood") == nil })
        #expect(limiter.take(group: "b", member: "flood") == 1)
        // The other half is there for others, each of whom gets a third now, then a quarter.
        #expect((0..<6).allSatisfy { _ in limiter.take(group: "b", member: "ann") == nil })
        #expect(limiter.take(group: "b", member: "bob") == nil)
        #expect(limiter.take(group: "b", member: "flood") == 1, "the flooder's share shrank")
        // Flooding on for 15 s, the flooder is held to half the budget at most (the others' calls are few: they
        // are idle again soon) and the others are served.
        var flooded = 0
        for _ in 0..<30 {
            clock.advance(0.5)
            flooded += (0..<50).filter { _ in limiter.take(group: "b", member: "flood") == nil }.count
            #expect(limiter.take(group: "b", member: "carol") == nil)
        }
        #expect(flooded <= 5 * 15, "\(flooded)")
        // Other groups have budgets of their own; no limit is none.
        #expect(limiter.take(group: "other", member: "flood") == nil)
        #expect(FairShareLimiter(.none).take(group: "b", member: "flood") == nil)
        #expect(limiter.share(active: 1) == RateLimiter.Rate(burst: 10, perSecond: 5))
        #expect(limiter.share(active: 99) == RateLimiter.Rate(burst: 1, perSecond: 0.1), "a call's worth at least")
    }

    @Test func aBusyPasswordPoolRefusesAtOnce() throws {
        let pool = PasswordPool(slots: 1)
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let left = DispatchSemaphore(value: 0)
        let thread = Thread {
            _ = try? pool.run {
                inside.signal()
                release.wait()
            }
            left.signal()
        }
        thread.start()
        inside.wait()
        #expect(throws: HTTPError.self) { try pool.run { 1 } }
        release.signal()
        left.wait()  // its slot given back
        #expect(try pool.run { 1 } == 1)
    }

    @Test(.bug(id: "issue-16-2", "a login flood from many addresses held up other clients on the HTTP threads"))
    func theRoutesThatHashPasswordsRunOffTheHTTPThreads() throws {
        let fixture = try ServerFixture()
        let offloaded = fixture.herald.application.offloadedRoutes.map { "\($0.method) \($0.pattern)" }
        #expect(
            offloaded.sorted() == [
                "POST /api2/mobile/users", "POST /api2/mobile/users/login", "PUT /api2/mobile/users",
            ])
        // And they answer as before from there.
        _ = try fixture.signedUp("ann@example.com")
        #expect(try fixture.app().logIn(email: "ann@example.com").status == 200)
    }

    @Test func failedLoginsWaitLongerAndLongerPerAccountAndAddress() {
        let clock = Seconds()
        let throttle = LoginThrottle(freeFailures: 3, now: { clock.now })
        for _ in 0..<3 {
            #expect(throttle.wait(account: "ann", address: "a") == nil)
            throttle.failed(account: "ann", address: "a")
        }
        #expect(throttle.wait(account: "ann", address: "a") == 5)
        #expect(throttle.wait(account: "ann", address: "b") == nil, "another address is not held up")
        #expect(throttle.wait(account: "bob", address: "a") == nil, "nor another account")
        clock.advance(5)
        throttle.failed(account: "ann", address: "a")
        #expect(throttle.wait(account: "ann", address: "a") == 10)
        clock.advance(10)
        throttle.failed(account: "ann", address: "a")
        #expect(throttle.wait(account: "ann", address: "a") == 20)
        #expect(throttle.delay(afterFailures: 40) == LoginThrottle.longestDelay)
        clock.advance(20)
        throttle.succeeded(account: "ann", address: "a")
        #expect(throttle.wait(account: "ann", address: "a") == nil)
        throttle.failed(account: "ann", address: "a")
        #expect(throttle.wait(account: "ann", address: "a") == nil, "a success starts the count again")
    }

    @Test(.bug(id: "issue-35-5", "anyone's failed logins on an account locked its owner out"))
    func failedLoginsFromElsewhereNeverLockTheOwnerOut() throws {
        let fixture = try ServerFixture { $0.authFailuresPerAccount = 3 }
        _ = try fixture.signedUp("ann@example.com")
        let attacker = fixture.app()
        attacker.http.sourceAddress = "127.0.0.2"
        for _ in 0..<3 {
            expectError(try attacker.logIn(email: "ann@example.com", password: "wrong-guess"), 422, ["base"])
        }
        let refused = try attacker.logIn(email: "ann@example.com", password: "wrong-guess")
        expectError(refused, 429, ["base"])
        #expect(refused.header("retry-after") == "5", "\(refused.headers)")
        // The owner, from her own address, logs in; so does anyone on another account.
        #expect(try fixture.app().logIn(email: "ann@example.com").status == 200)
        _ = try fixture.signedUp("bob@example.com")
        #expect(try attacker.logIn(email: "bob@example.com").status == 200)
    }

    @Test(.bug(id: "issue-16-2", "no rate limit on sign-up"))
    func signUpsFromOneAddressAreLimited() throws {
        let fixture = try ServerFixture { $0.authPerAddressPerMinute = 4 }
        for index in 0..<4 { _ = try fixture.signedUp("user\(index)@example.com") }
        let refused = try fixture.app().signUp(email: "user4@example.com")
        expectError(refused, 429, ["base"])
        #expect(refused.header("retry-after") == "15")
        // From another address, sign-ups go on.
        let elsewhere = fixture.app()
        elsewhere.http.sourceAddress = "127.0.0.9"
        #expect(try elsewhere.signUp(email: "user5@example.com").status == 200)
    }

    @Test(.bug(id: "issue-35-4", "one user's calls spent the whole business's bucket"))
    func signedInMobileCallsAreLimitedPerUser() throws {
        let fixture = try ServerFixture { $0.mobilePerUserPerSecond = 5 }
        let ann = try fixture.signedUp("ann@example.com")
        let bob = try fixture.signedUp("bob@example.com")
        var statuses: [Int] = []
        for _ in 0..<40 { statuses.append(try ann.profile().status) }
        #expect(statuses.contains(429), "\(statuses)")
        #expect(statuses.prefix(5).allSatisfy { $0 == 200 }, "\(statuses)")
        #expect(try bob.profile().status == 200, "another user of the business is not held up")
    }

    @Test(.bug(id: "issue-35-4", "unsigned junk naming a business's client 429'd its real traffic"))
    func mobileCallsBeforeSigningInAreChargedOnlyOnceSigned() throws {
        let fixture = try ServerFixture { $0.mobilePerBusinessPerSecond = 5 }
        let junk = fixture.app()
        for _ in 0..<40 {
            let response = try junk.call(
                "POST", "/api2/mobile/users/login", body: #"{"client":"\#(fixture.business.client)"}"#, digest: "00")
            #expect(response.status == 412)
        }
        #expect(try fixture.app().signUp(email: "ann@example.com").status == 200)
        var statuses: [Int] = []
        for _ in 0..<40 { statuses.append(try fixture.app().logIn(email: "ann@example.com").status) }
        #expect(statuses.contains(429), "signed calls before signing in still share the business's bucket")
    }

    @Test(.bug(id: "issue-40-5", "one client flooding with the app's public secret 429'd every login of the business"))
    func aFloodWithTheAppsSecretSlowsTheFlooderNotTheBusiness() throws {
        let fixture = try ServerFixture {
            $0.mobilePerBusinessPerSecond = 10
            $0.authPerAddressPerMinute = 60
        }
        _ = try fixture.signedUp("ann@example.com")
        // One client floods sign-in calls, signed with the secret every copy of the app holds, as fast as it can.
        let flooding = Mutex((sent: 0, refused: 0, stop: false))
        let done = DispatchSemaphore(value: 0)
        let flooder = fixture.app()
        flooder.http.sourceAddress = "127.0.0.2"
        Thread {
            while !flooding.withLock({ $0.stop }) {
                let status = (try? flooder.call("POST", "/api2/mobile/users/login", json: []).status) ?? 0
                flooding.withLock {
                    $0.sent += 1
                    if status == 429 { $0.refused += 1 }
                }
            }
            done.signal()
        }.start()
        defer {
            flooding.withLock { $0.stop = true }
            done.wait()
        }
        #expect(Poll.until { flooding.withLock { $0.refused >= 50 } }, "the flooder is refused")
        // Meanwhile the business's users, each from an address of their own, log in.
        for index in 3..<7 {
            let app = fixture.app()
            app.http.sourceAddress = "127.0.0.\(index)"
            let response = try app.logIn(email: "ann@example.com")
            #expect(response.status == 200, "\(flooding.withLock { $0 }): \(response)")
        }
    }

    @Test func deviceCallsOfOneInstallAreLimited() throws {
        let fixture = try ServerFixture { $0.devicePerInstallPerMinute = 5 }
        let phone = try fixture.install()
        var statuses: [Int] = []
        for _ in 0..<12 { statuses.append(try phone.call("POST", "/api/v1/notifications/pull").status) }
        #expect(statuses.contains(429), "\(statuses)")
        // Another install has its own bucket.
        #expect(try fixture.install().call("POST", "/api/v1/notifications/pull").status == 200)
    }

    @Test(.bug(id: "issue-35-4", "unsigned junk naming an install's key id 429'd the install"))
    func junkNamingAnInstallsKeySpendsNothingOfIt() throws {
        let fixture = try ServerFixture { $0.devicePerInstallPerMinute = 5 }
        let phone = try fixture.install()
        for _ in 0..<20 {
            let forged = try phone.call("POST", "/api/v1/notifications/pull", secret: "not-the-secret")
            #expect(forged.status == 401)
        }
        #expect(try phone.call("POST", "/api/v1/notifications/pull").status == 200)
    }

    @Test(.bug(id: "issue-35-10", "install registration had no limit: fake installs joined every audience"))
    func installRegistrationsFromOneAddressAreLimited() throws {
        let fixture = try ServerFixture { $0.installsPerAddressPerMinute = 3 }
        for _ in 0..<3 { _ = try fixture.install() }
        let refused = try fixture.herald.deviceClient().register(apiKey: fixture.business.apiKey)
        expectError(refused, 429, ["base"])
        #expect(refused.header("retry-after") == "20")
        let elsewhere = fixture.herald.deviceClient()
        elsewhere.http.sourceAddress = "127.0.0.9"
        #expect(try elsewhere.register(apiKey: fixture.business.apiKey).status == 201)
    }

    @Test func posCallsWithOneKeyAreLimited() throws {
        let fixture = try ServerFixture { $0.posPerKeyPerSecond = 5 }
        var statuses: [Int] = []
        for _ in 0..<40 {
            let response = try fixture.herald.pos(
                fixture.business, "POST", "/api/pos/checkins/999999/void", json: [:])
            statuses.append(response.status)
            if response.status == 429 { #expect(response.header("retry-after") != nil) }
        }
        #expect(statuses.contains(429), "\(statuses)")
        #expect(statuses.prefix(5).allSatisfy { $0 != 429 }, "\(statuses)")
    }
}
