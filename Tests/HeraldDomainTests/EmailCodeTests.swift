import Foundation
import HeraldDomain
import HeraldModel
import HeraldStore
import HeraldTesting
import Synchronization
import Testing

/// The codes that prove an imported customer's email, counted in the database: a few tries of each, a few codes an
/// hour, each for a while — the same counts whichever node a try reaches, and however many race.
@Suite("Domain conformance: email codes")
struct EmailCodeTests {
    let code: [UInt8] = [1, 2, 3]

    @Test(arguments: StoreBackend.allCases)
    func aCodeIsTriedAtMostFiveTimesAcrossNodesAndRaces(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let nodes = [world.accounts] + (try (0..<3).map { _ in try node(world) })
        let ann = world.user.id
        #expect(try world.accounts.issueEmailCode(userID: ann, codeHash: code) == .issued(expiresAt: at(900)))
        // Forty wrong guesses at once, spread over four nodes: five are tried, the rest find nothing to try.
        let answers = Mutex<[EmailCodeAttempt]>([])
        DispatchQueue.concurrentPerform(iterations: 40) { index in
            let answer = try? nodes[index % nodes.count].tryEmailCode(userID: ann, codeHash: [9, 9, UInt8(index)])
            answers.withLock { $0.append(answer ?? .proven) }
        }
        let wrong = answers.withLock { $0 }.compactMap { answer -> Int? in
            if case .wrong(let left) = answer { return left }
            return nil
        }
        #expect(wrong.sorted() == [0, 1, 2, 3, 4], "\(answers.withLock { $0 })")
        #expect(answers.withLock { $0 }.filter { $0 == .unusable }.count == 35)
        // The right code now: used up.
        #expect(try nodes[1].tryEmailCode(userID: ann, codeHash: code) == .unusable)
        // A new code, tried on another node, proves the email.
        #expect(try nodes[2].issueEmailCode(userID: ann, codeHash: [4, 5]) == .issued(expiresAt: at(900)))
        #expect(try nodes[3].tryEmailCode(userID: ann, codeHash: [4, 6]) == .wrong(triesLeft: 4))
        #expect(try nodes[0].tryEmailCode(userID: ann, codeHash: [4, 5]) == .proven)
        // Another user's code is another count.
        let bob = try world.addUser("bob@example.com").id
        #expect(try world.accounts.tryEmailCode(userID: bob, codeHash: code) == .unusable, "none was issued")
    }

    @Test(arguments: StoreBackend.allCases)
    func aCodeExpiresAndFiveAreIssuedAnHour(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend, start: at(0))
        let other = try node(world)
        let ann = world.user.id
        for index in 0..<5 {
            world.clock.set(at(Int64(index) * 600))
            let issued = try (index.isMultiple(of: 2) ? world.accounts : other).issueEmailCode(
                userID: ann, codeHash: [UInt8(index)])
            #expect(issued == .issued(expiresAt: at(Int64(index) * 600 + 900)))
        }
        // The last is valid 15 minutes; those before it were replaced.
        #expect(try world.accounts.tryEmailCode(userID: ann, codeHash: [3]) == .wrong(triesLeft: 4))
        world.clock.set(at(2400 + 899))
        #expect(try other.tryEmailCode(userID: ann, codeHash: [4]) == .proven)
        world.clock.set(at(2400 + 900))
        #expect(try other.tryEmailCode(userID: ann, codeHash: [4]) == .unusable, "expired")
        // A sixth within the hour of the first is refused, on any node, until that hour is over.
        #expect(try other.issueEmailCode(userID: ann, codeHash: [5]) == .tooMany(retryAt: at(3600)))
        world.clock.set(at(3599))
        #expect(try world.accounts.issueEmailCode(userID: ann, codeHash: [5]) == .tooMany(retryAt: at(3600)))
        world.clock.set(at(3600))
        #expect(try world.accounts.issueEmailCode(userID: ann, codeHash: [6]) == .issued(expiresAt: at(4500)))
        #expect(try other.tryEmailCode(userID: ann, codeHash: [6]) == .proven)
    }

    /// Accounts on another node: another connection to the same database, the same clock.
    private func node(_ world: StoreFixture) throws -> AccountService {
        let store = try world.backend.reopen(world.path)
        let loyalty = LoyaltyService(store: store, notifications: world.notifications, clock: world.clock.wallClock)
        return AccountService(
            store: store, notifications: world.notifications, loyalty: loyalty, clock: world.clock.wallClock)
    }
}
