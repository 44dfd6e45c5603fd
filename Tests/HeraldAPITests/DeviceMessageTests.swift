import Dispatch
import Foundation
import HeraldModel
import HeraldStore
import HeraldTesting
import Synchronization
import Testing

/// `POST /api/v1/notifications/pull` and `GET /api/v1/notifications/{id}`: an install's messages, each handed once.
@Suite("Device API: messages")
struct DeviceMessageTests {
    @Test func aPullHandsTheMessagesAsTheSDKReadsThemOnce() throws {
        let fixture = try ServerFixture()
        let phone = try fixture.install()
        let other = try fixture.install()
        let campaign = try fixture.campaign()
        let first = try fixture.message(to: phone.installID, campaign: campaign, headline: "First")
        let survey = try fixture.message(
            to: phone.installID, campaign: campaign, headline: "How was it?",
            questions: [["id": "stars", "text": "Rate us", "type": "rating", "required": true]])
        let theirs = try fixture.message(to: other.installID, campaign: campaign)

        let pulled = try phone.pull()
        #expect(pulled.map { $0["id"] } == [.string(String(first.id)), .string(String(survey.id))])
        let message = try #require(HeraldMessage(json: pulled[0]))
        #expect(message.campaignID == String(campaign.id))
        #expect(message.headline == "First" && message.body == "Half off" && !message.isSandbox)
        #expect(message.media?.type == .image && message.cta?.label == "Shop")
        let asked = try #require(HeraldMessage(json: pulled[1]))
        #expect(asked.isSurvey && asked.questions.map(\.id) == ["stars"])
        #expect(try phone.pull().isEmpty, "handed once")

        // Fetched by id (a push too large to carry it): the same message, this install's only.
        let fetched = try phone.call("GET", "/api/v1/notifications/\(first.id)")
        #expect(fetched.status == 200 && fetched.value == pulled[0], "\(fetched)")
        #expect(try other.call("GET", "/api/v1/notifications/\(first.id)").status == 404)
        #expect(try phone.call("GET", "/api/v1/notifications/\(theirs.id)").status == 404)
        #expect(try other.pull().map { $0["id"] } == [.string(String(theirs.id))])
    }

    @Test func concurrentPullsHandEachMessageOnce() throws {
        let fixture = try ServerFixture()
        let phone = try fixture.install()
        let campaign = try fixture.campaign()
        let sent = try (1...150).map { try fixture.message(to: phone.installID, campaign: campaign, trigger: "t\($0)") }
        let herald = fixture.herald
        let (keyID, secret, installID) = (phone.keyID!, phone.secret!, phone.installID)
        let handed = Mutex<[String]>([])
        let failures = Mutex<[String]>([])
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for _ in 0..<6 {
            done.enter()
            DispatchQueue.global().async {
                let client = herald.deviceClient(installID: installID)
                client.keyID = keyID
                client.secret = secret
                gate.wait()
                do {
                    while true {
                        let response = try client.call(
                            "POST", "/api/v1/notifications/pull", json: ["nonce": .string(UUIDString.random())])
                        guard response.status == 200, let items = response.value?["data"]?.arrayValue else {
                            failures.withLock { $0.append("\(response)") }
                            break
                        }
                        if items.isEmpty { break }
                        handed.withLock { $0 += items.compactMap { $0["id"]?.stringValue } }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
                done.leave()
            }
        }
        for _ in 0..<6 { gate.signal() }
        done.wait()
        #expect(failures.withLock { $0 }.isEmpty)
        let ids = handed.withLock { $0 }
        #expect(ids.count == sent.count, "each message handed once, not \(ids.count) times in all")
        #expect(Set(ids) == Set(sent.map { String($0.id) }))
    }

    @Test(arguments: [
        "/api/v1/notifications/0", "/api/v1/notifications/-1", "/api/v1/notifications/abc",
        "/api/v1/notifications/99999999999999999999", "/api/v1/notifications/%00", "/api/v1/notifications/1e3",
        "/api/v1/notifications/%27%20OR%201%3D1%20--", "/api/v1/notifications/1%2F2",
        "/api/v1/notifications/" + String(repeating: "9", count: 2_000),
    ])
    func hostileMessageIDsAre404(_ target: String) throws {
        let fixture = try ServerFixture()
        let phone = try fixture.install()
        try fixture.message(to: phone.installID, campaign: nil)
        let response = try phone.call("GET", target)
        BadInputTests.check(response, .rejected, target)
        #expect(response.status == 404, "\(target): \(response)")
    }
}
