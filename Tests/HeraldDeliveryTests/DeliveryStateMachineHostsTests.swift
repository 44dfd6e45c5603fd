import HeraldModel
import HeraldDeliveryPorts
import HeraldStore
import Testing

@testable import HeraldDelivery

/// The APNs environment through the engine: a device's goes out with its push, and the one another host showed comes
/// back in the answer to be written.
@Suite("Delivery state machine: APNs hosts")
struct DeliveryStateMachineHostsTests {
    let machines = DeliveryStateMachineTests()

    func job(_ id: Int64, environment: String?) -> ClaimedDelivery {
        let draft = NotificationDraft(
            businessID: 1, userID: 7, kind: .news, event: "news", title: "T", body: "B", extras: ["u": 7])
        return ClaimedDelivery(
            id: id, attempts: 1, apnsID: "apns-\(id)", platform: .apns, token: "token-\(id)", tokenUpdatedAt: nil,
            deviceID: 10 + id, deviceBelongsToRecipient: true,
            notification: InboxEntry(id: 100 + id, draft: draft, createdAt: machines.t(0)).queued, badge: 1,
            apnsEnvironment: environment)
    }

    @Test("a device's environment goes with its push; the one Apple's other host showed is written with the answer")
    func theEnvironmentGoesOutAndComesBack() {
        var engine = machines.machine()
        _ = engine.step(at: machines.t(0))
        let jobs = [job(1, environment: "sandbox"), job(2, environment: nil), job(3, environment: "production")]
        engine.claimed(jobs, requested: 256, leaseUntil: machines.t(60_000), at: machines.t(0))
        let sends = engine.step(at: machines.t(1)).sends
        #expect(sends.map(\.push.apnsEnvironment) == ["sandbox", nil, "production"])

        let answers: [PushResult] = [
            .delivered(messageID: nil, apnsEnvironment: "production"), .delivered(messageID: nil),
            .unregistered(reason: "400 BadDeviceToken", since: nil),
        ]
        for (job, answer) in zip(jobs, answers) {
            _ = engine.answered(job, answer, sentAt: machines.t(1), roundTrip: nil, outstanding: 3, at: machines.t(2))
        }
        let written = engine.step(at: machines.t(10)).record
        #expect(written.map(\.apnsEnvironment) == ["production", nil, nil])
        #expect(written.map(\.outcome.status) == [.delivered, .delivered, .pruned])
        #expect(written.map(\.deviceID) == [11, 12, 13] && written.map(\.token) == ["token-1", "token-2", "token-3"])
    }
}
