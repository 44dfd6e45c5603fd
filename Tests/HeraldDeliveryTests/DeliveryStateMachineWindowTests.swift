import HeraldDeliveryPorts
import HeraldModel
import Testing

@testable import HeraldDelivery

/// The credentials' windows the nodes keep (`CredentialWindowStore`): which of its own a node keeps, and where a
/// credential new to it starts.
@Suite("Delivery state machine: kept windows")
struct DeliveryStateMachineWindowTests {
    let machines = DeliveryStateMachineTests()

    @Test(
        "a node keeps a window when it changed, or when it sent with it since it last kept it before the time asked; not otherwise",
        .bug(id: "issue-44", "an idle node kept its old window fresh for ever, over the one a node sending kept")
    )
    func windowsAreKeptWhenTheyChange() {
        var engine = machines.machine(concurrency: 4096, adaptive: false, credentialWindow: 64)
        let t = machines.t
        #expect(engine.windowsToKeep(at: t(0), refreshBefore: t(0)).isEmpty, "no credential sent yet")
        _ = engine.step(at: t(0))
        engine.claimed((1...65).map { machines.job($0) }, requested: 65, leaseUntil: t(60_000), at: t(0))
        let sent = engine.step(at: t(0)).sends.map(\.job)
        #expect(sent.count == 64, "one waits for room")
        let first = engine.windowsToKeep(at: t(1), refreshBefore: t(0))
        #expect(first == [CredentialWindow(businessID: 1, platform: .apns, limit: 64, found: false, at: t(1))])
        engine.windowsKept(first)
        #expect(engine.windowsToKeep(at: t(2), refreshBefore: t(0)).isEmpty, "unchanged since kept")
        #expect(
            engine.windowsToKeep(at: t(2), refreshBefore: t(2)).isEmpty,
            "kept before the time asked, but not sent with since: not kept again, so it ages out")
        // An answer that moves no window (a timeout) makes room: the push waiting is sent. In use, the window is kept
        // again once its refresh is due.
        _ = engine.answered(
            sent[1], .retryable(reason: "timeout", retryAfter: nil), sentAt: t(0), roundTrip: nil, outstanding: 64,
            at: t(3))
        #expect(engine.step(at: t(3)).sends.count == 1)
        #expect(engine.windowsToKeep(at: t(4), refreshBefore: t(1)).isEmpty, "its refresh not due")
        #expect(engine.windowsToKeep(at: t(4), refreshBefore: t(4)).count == 1, "sent with since it was kept")
        // A refusal for load finds the provider's limit: the window is kept again, found.
        _ = engine.answered(
            sent[0], .shed(reason: "503"), sentAt: t(0), roundTrip: .milliseconds(40), outstanding: 64, at: t(40))
        #expect(
            engine.windowsToKeep(at: t(41), refreshBefore: t(0))
                == [CredentialWindow(businessID: 1, platform: .apns, limit: 57, found: true, at: t(41))],
            "0.9 of what was in flight")
    }

    @Test("a credential new to this node starts from the window the nodes kept: past slow start when it was found")
    func aNewCredentialStartsFromTheKeptWindow() {
        var engine = machines.machine(concurrency: 4096, adaptive: false, credentialWindow: 64)
        let t = machines.t
        engine.knownWindows([
            CredentialWindow(businessID: 1, platform: .apns, limit: 300, found: true, at: t(0)),
            CredentialWindow(businessID: 2, platform: .apns, limit: 200, found: false, at: t(0)),
        ])
        _ = engine.step(at: t(0))
        engine.claimed(
            (1...400).map { machines.job($0) } + (401...800).map { machines.job($0, business: 2) }, requested: 800,
            leaseUntil: t(60_000), at: t(0))
        let sent = engine.step(at: t(0)).sends.map(\.job.notification.businessID)
        #expect(sent.filter { $0 == 1 }.count == 300 && sent.filter { $0 == 2 }.count == 200)
        let found = engine.credentials[DeliveryStateMachine.key(1, .apns)]?.window
        let doubling = engine.credentials[DeliveryStateMachine.key(2, .apns)]?.window
        #expect(found?.slowStart == false && doubling?.slowStart == true)
        #expect(engine.credentials[DeliveryStateMachine.key(3, .apns)] == nil)
    }
}
