import Foundation
import HeraldModel
import HeraldSQLite
import HeraldStore
import Testing

/// How long audiences take on a large database: `HERALD_BENCH_AUDIENCE_DB=<herald.db>` names one (as
/// `HERALD_BENCH_KEEP=1 bench/campaign/import` leaves it, business 1); skipped otherwise. Prints its timings.
@Suite("Audiences at scale")
struct AudienceScaleTests {
    static let path = ProcessInfo.processInfo.environment["HERALD_BENCH_AUDIENCE_DB"]

    static func timed<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
        let started = ContinuousClock.now
        let result = try body()
        print("audience scale: \(label): \(ContinuousClock.now - started)")
        return result
    }

    @Test(.enabled(if: path != nil))
    func pagingAndCountingAMillionDevices() throws {
        let store = try Store(database: try SQLiteDatabase(path: Self.path!))
        let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        let gold = Audience.segment(.attribute("tier", .eq(.string("gold"))))
        for (label, audience) in [("all", Audience.all), ("tier = gold", gold)] {
            let total = try Self.timed("count \(label)") {
                try store.read {
                    try $0.audiences.count(businessID: 1, audience: audience, sandboxOnly: false, at: now)
                }
            }
            var cursor: Int64 = 0
            var seen = 0
            var slowest = Duration.zero
            try Self.timed("page through \(label) by 1,000") {
                while true {
                    let started = ContinuousClock.now
                    let page = try store.read {
                        try $0.audiences.targets(
                            businessID: 1, audience: audience, sandboxOnly: false, after: cursor, limit: 1_000, at: now)
                    }
                    slowest = max(slowest, ContinuousClock.now - started)
                    guard let last = page.last else { break }
                    seen += page.count
                    cursor = last.deviceID
                }
            }
            print("audience scale: \(label): \(seen) devices, slowest page \(slowest)")
            #expect(seen == total)
        }
        let sandbox = try Self.timed("sandbox targets") {
            try store.read {
                try $0.audiences.targets(
                    businessID: 1, audience: .all, sandboxOnly: true, after: 0, limit: 1_000, at: now)
            }
        }
        #expect(sandbox.isEmpty)
        let users = try Self.timed("targets of 1,000 users") {
            try store.read {
                try $0.audiences.targets(
                    businessID: 1, audience: .userIDs(Array(400_001...401_000)), sandboxOnly: false, after: 0,
                    limit: 2_000, at: now)
            }
        }
        #expect(users.count == 1_000)
    }
}
