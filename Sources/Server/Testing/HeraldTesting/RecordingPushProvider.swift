import Foundation
import HeraldDelivery
import HeraldModel
import Synchronization

/// A push provider that sends nothing: it keeps every push it is handed and answers as the test says
/// (`delivered` by default), so what an event pushes is tested in-process, without TLS or a stand-in.
///
/// ```swift
/// let apns = RecordingPushProvider()
/// let herald = try LiveHerald(providers: { _ in [apns] })
/// // … a check-in …
/// let push = try #require(apns.waitForPushes(1).first)
/// #expect(push.payload["p"] == 12)
/// ```
public final class RecordingPushProvider: PushProvider {
    public let platform: PushPlatform
    private let answer: @Sendable (OutgoingPush) -> PushResult
    private let sent = Mutex<[OutgoingPush]>([])
    private let arrived = CommitWaiter.Flag()

    /// A provider for `platform` answering each push with `answer`.
    public init(
        platform: PushPlatform = .apns,
        answer: @escaping @Sendable (OutgoingPush) -> PushResult = { _ in .delivered(messageID: nil) }
    ) {
        self.platform = platform
        self.answer = answer
    }

    public func send(_ push: OutgoingPush, completion: @escaping @Sendable (PushResult) -> Void) {
        sent.withLock { $0.append(push) }
        arrived.set()
        completion(answer(push))
    }

    public func credentialChanged(businessID: Int64) {}

    public func shutdown() {}

    /// Every push handed over so far, in order.
    public var pushes: [OutgoingPush] { sent.withLock { $0 } }

    /// Waits until at least `count` pushes were handed over (at most `timeout`); returns all of them.
    @discardableResult
    public func waitForPushes(_ count: Int, timeout: Duration = .seconds(10)) -> [OutgoingPush] {
        let deadline = Date(timeIntervalSinceNow: timeout / .seconds(1))
        while true {
            arrived.reset()
            let pushes = self.pushes
            if pushes.count >= count || Date() >= deadline { return pushes }
            arrived.wait(until: deadline)
        }
    }
}

extension OutgoingPush {
    /// The APNs payload this push goes out as (what Apple would receive), parsed.
    public var payload: JSON { (try? JSON.parse(apnsPayload)) ?? .null }
}

extension OutgoingPush {
    /// The FCM request body this push goes out as (`fcmBody`), read back as JSON: what a test checks of it.
    public var fcmMessage: JSON { (try? JSON.parse(fcmBody)) ?? .null }
}
