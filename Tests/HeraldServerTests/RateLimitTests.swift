import Foundation
import HeraldHTTP
import HeraldTesting
import Synchronization
import Testing

@testable import HeraldServer

/// Token buckets on sign-up, login and password checks (per address and per account), per business on the mobile
/// API; 429 with `Retry-After` in Punchh's error shape; password hashing on a bounded pool.
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

    @Test(.bug(id: "issue-16-2", "no rate limit on login"))
    func loginsOnOneAccountAreLimited() throws {
        let fixture = try ServerFixture { $0.authPerAccountPerMinute = 3 }
        _ = try fixture.signedUp("ann@example.com")
        _ = try fixture.signedUp("bob@example.com")
        // The sign-up was one; two wrong guesses are two more.
        for _ in 0..<2 {
            expectError(try fixture.app().logIn(email: "ann@example.com", password: "wrong-guess"), 422, ["base"])
        }
        let refused = try fixture.app().logIn(email: "ann@example.com")
        expectError(refused, 429, ["base"])
        #expect(Int(refused.header("retry-after") ?? "") == 20, "\(refused.headers)")
        // Another account is not held up.
        #expect(try fixture.app().logIn(email: "bob@example.com").status == 200)
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

    @Test func mobileCallsOfOneBusinessAreLimited() throws {
        let fixture = try ServerFixture { $0.mobilePerBusinessPerSecond = 5 }
        let app = try fixture.signedUp("ann@example.com")  // one call
        var statuses: [Int] = []
        for _ in 0..<40 { statuses.append(try app.profile().status) }
        #expect(statuses.contains(429), "\(statuses)")
        #expect(statuses.prefix(5).allSatisfy { $0 == 200 }, "\(statuses)")
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
