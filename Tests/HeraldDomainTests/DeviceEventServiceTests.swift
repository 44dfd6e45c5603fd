import Dispatch
import HeraldDomain
import HeraldModel
import HeraldStore
import HeraldTesting
import Synchronization
import Testing

@Suite("Domain conformance: device events and campaign reports")
struct DeviceEventServiceTests {
    static let survey: JSON = [
        ["id": "stars", "text": "Rate us", "type": "rating", "required": true],
        [
            "id": "drink", "text": "Drink?", "type": "single_choice",
            "choices": [["id": "tea", "text": "Tea"], ["id": "coffee", "text": "Coffee"]],
        ],
    ]

    @Test(arguments: StoreBackend.allCases)
    func aRetriedBatchCountsNothingTwice(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let device = try w.install("phone").device
        let campaign = try w.campaign()
        let message = try w.message(to: device, campaign: campaign)
        let batch = [
            DeviceWorld.event(.notificationReceived, message, at: at(1)),
            DeviceWorld.event(.notificationDisplayed, message, at: at(2), data: ["location_id": 7]),
            ["id": "not-a-uuid", "type": "notification.dismissed", "occurred_at": .string(at(3).iso8601)],
            DeviceWorld.event(.custom, at: at(3), data: DeviceEvent.customData(name: "cart.added")),
        ]
        let first = try w.post(batch, from: device)
        #expect(first.map(\.status) == [.accepted, .accepted, .rejected, .accepted])
        #expect(first[2].id == "not-a-uuid" && first[2].errors?["id"] != nil, "echoed as sent")
        #expect(first[0].id == batch[0]["id"]?.stringValue)
        let retried = try w.post(batch, from: device)
        #expect(retried.map(\.status) == [.duplicate, .duplicate, .rejected, .duplicate])
        // Another received event (a new id) for the same message: kept, but the message was received once.
        let again = try w.post([DeviceWorld.event(.notificationReceived, message, at: at(4))], from: device)
        #expect(again.map(\.status) == [.accepted])
        let report = try w.report(campaign)
        #expect(report[.received] == 1 && report[.displayed] == 1 && report[.dismissed] == 0)
        #expect(try w.store.read { try $0.deviceEvents.count(deviceID: device.id) } == 4)
    }

    @Test(arguments: StoreBackend.allCases)
    func twoNodesPostingTheSameBatchCountItOnce(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let device = try w.install("phone").device
        let campaign = try w.campaign()
        let messages = try (1...5).map { try w.message(to: device, campaign: campaign, trigger: "t\($0)") }
        let batch = messages.flatMap { message in
            [
                DeviceWorld.event(.notificationReceived, message, at: at(1)),
                DeviceWorld.event(.notificationOpened, message, at: at(2)),
            ]
        }
        let second = DeviceEventService(store: try w.world.backend.reopen(w.world.path), clock: w.world.clock.wallClock)
        let services = [w.events, second]
        let outcomes = Mutex<[[DeviceEventResult.Status]]>([])
        let failures = Mutex<[String]>([])
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for index in 0..<4 {
            done.enter()
            DispatchQueue.global().async {
                gate.wait()
                do {
                    let results = try services[index % 2].record(.object([("events", .array(batch))]), from: device)
                    outcomes.withLock { $0.append(results.map(\.status)) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
                done.leave()
            }
        }
        for _ in 0..<4 { gate.signal() }
        done.wait()
        #expect(failures.withLock { $0 }.isEmpty)
        let all = outcomes.withLock { $0 }.flatMap { $0 }
        #expect(all.filter { $0 == .accepted }.count == batch.count, "each event accepted by one post")
        #expect(all.filter { $0 == .duplicate }.count == batch.count * 3)
        let report = try w.report(campaign)
        #expect(report[.received] == 5 && report[.directOpens] == 5 && report[.opened] == 5)
    }

    @Test(arguments: StoreBackend.allCases)
    func eachLifecycleStepCountsOncePerMessageOfThisInstall(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let device = try w.install("phone").device
        let other = try w.install("other").device
        let campaign = try w.campaign()
        let mine = try w.message(to: device, campaign: campaign)
        let theirs = try w.message(to: other, campaign: campaign)
        let plain = try w.message(to: device, campaign: nil)
        let steps: [DeviceEventType] = [
            .notificationReceived, .notificationDisplayed, .notificationOpened, .notificationCTAClicked,
            .notificationDismissed, .mediaViewed, .mediaCompleted, .notificationSurveyStarted,
        ]
        for entry in [mine, mine, theirs, plain] {
            let results = try w.post(
                steps.map {
                    DeviceWorld.event(
                        $0, entry, at: at(5),
                        data: $0 == .mediaViewed ? DeviceEvent.mediaViewedData(positionSeconds: 3) : nil
                    )
                }, from: device)
            // Another install's message is refused by name, not silently accepted and left uncounted.
            if entry == theirs {
                #expect(
                    results.allSatisfy { $0.status == .rejected && $0.errors?["notification_id"] != nil },
                    "\(results)")
            } else {
                #expect(results.allSatisfy { $0.status == .accepted }, "\(results)")
            }
        }
        let report = try w.report(campaign)
        let counted: [CampaignMetric] = [
            .received, .displayed, .opened, .directOpens, .ctaClicked, .dismissed, .mediaViewed, .mediaCompleted,
            .surveyStarted,
        ]
        for metric in counted { #expect(report[metric] == 1, "\(metric)") }
        for metric in [CampaignMetric.influencedOpens, .surveySubmitted, .targeted, .sent, .delivered, .failed] {
            #expect(report[metric] == 0, "\(metric)")
        }
        #expect(try w.store.read { try $0.inbox.hasMilestone(notificationID: plain.id, type: "displayed") })
        #expect(try !w.store.read { try $0.inbox.hasMilestone(notificationID: theirs.id, type: "displayed") })
        #expect(
            report.json.objectValue?.map(\.key) == [
                "targeted", "sent", "delivered", "failed", "received", "displayed", "opened", "direct_opens",
                "influenced_opens", "cta_clicked", "dismissed", "media_viewed", "media_completed", "survey_started",
                "survey_submitted", "granted", "redeemed", "pace",
            ], "the counters, then the pace")
    }

    @Test(arguments: StoreBackend.allCases)
    func surveyAnswersAreJudgedAgainstTheMessagesSurvey(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let device = try w.install("phone").device
        let other = try w.install("other").device
        let campaign = try w.campaign()
        let survey = try w.message(to: device, campaign: campaign, questions: Self.survey)
        let plain = try w.message(to: device, campaign: campaign, trigger: "plain")
        let strangers = try w.message(to: other, campaign: campaign, questions: Self.survey)
        func submit(_ entry: InboxEntry, _ answers: JSON) -> JSON {
            DeviceWorld.event(.surveySubmitted, entry, at: at(5), data: ["answers": answers])
        }
        let results = try w.post(
            [
                submit(survey, [["question_id": "stars", "value": 9]]),
                submit(survey, [["question_id": "drink", "value": "tea"]]),
                submit(survey, [["question_id": "stars", "value": 4], ["question_id": "drink", "value": "milk"]]),
                submit(plain, [["question_id": "stars", "value": 4]]),
                submit(strangers, [["question_id": "stars", "value": 4]]),
                submit(survey, [["question_id": "stars", "value": 4], ["question_id": "drink", "value": "coffee"]]),
            ], from: device)
        #expect(results.map(\.status) == [.rejected, .rejected, .rejected, .rejected, .rejected, .accepted])
        #expect(results[0].errors?["data.answers.stars"] != nil, "\(results[0])")
        #expect(results[1].errors?["data.answers.stars"] != nil, "a required question left out: \(results[1])")
        #expect(results[2].errors?["data.answers.drink"] != nil, "\(results[2])")
        #expect(results[3].errors?["notification_id"] != nil, "not a survey: \(results[3])")
        #expect(results[4].errors?["notification_id"] != nil, "another install's survey: \(results[4])")
        #expect(try w.report(campaign)[.surveySubmitted] == 1)
    }

    @Test(arguments: StoreBackend.allCases)
    func appOpensAfterADeliveryAreInfluencedAndATapMakesThemDirect(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let device = try w.install("phone", token: .some(apnsToken(1))).device
        let campaign = try w.campaign()
        try w.message(to: device, campaign: campaign, trigger: "one")
        try w.deliverAll(at: at(100))
        let newer = try w.message(to: device, campaign: campaign, trigger: "two")
        try w.deliverAll(at: at(200))
        let undelivered = try w.message(to: device, campaign: campaign, trigger: "three")
        #expect(try w.store.read { try $0.deliveries.all(notificationID: undelivered.id) }.first?.status == .queued)
        w.world.clock.set(at(400))
        func opened(at time: Timestamp) throws -> DeviceEventResult.Status {
            try w.post([DeviceWorld.event(.appOpened, at: time, data: appOpenedData)], from: device)[0].status
        }
        func report() throws -> CampaignReport { try w.report(campaign) }

        // The app opened after both were delivered: the newest is the influencer, once.
        #expect(try opened(at: at(300)) == .accepted)
        #expect(try report()[.influencedOpens] == 1 && report()[.opened] == 1)
        #expect(try opened(at: at(350)) == .accepted)
        #expect(try report()[.influencedOpens] == 1, "a message is an influencer once")
        #expect(try w.store.read { try $0.inbox.hasMilestone(notificationID: newer.id, type: "influenced_opens") })

        // Then its push is tapped: the open was direct after all; opened stays one message.
        _ = try w.post([DeviceWorld.event(.notificationOpened, newer, at: at(360))], from: device)
        var now = try report()
        #expect(now[.directOpens] == 1 && now[.influencedOpens] == 0 && now[.opened] == 1)

        // The next app open is influenced by the older one (the newer was opened directly).
        #expect(try opened(at: at(380)) == .accepted)
        now = try report()
        #expect(now[.influencedOpens] == 1 && now[.opened] == 2 && now[.directOpens] == 1)
        #expect(now[.opened] == now[.directOpens] + now[.influencedOpens])

        // An open before a delivery, or past the window, is nobody's.
        let later = try w.message(to: device, campaign: campaign, trigger: "four")
        w.world.clock.set(at(100_000))
        try w.deliverAll(at: at(100_000))
        #expect(try opened(at: at(90_000)) == .accepted)
        w.world.clock.set(at(100_000 + 86_400 + 60))
        #expect(try opened(at: at(100_000 + 86_400 + 30)) == .accepted)
        now = try report()
        #expect(now[.influencedOpens] == 1 && now[.opened] == 2)
        #expect(try !w.store.read { try $0.inbox.hasMilestone(notificationID: later.id, type: "influenced_opens") })
        // A direct open of a message never influenced counts a new open.
        _ = try w.post([DeviceWorld.event(.notificationOpened, later, at: at(100_000 + 86_400 + 40))], from: device)
        now = try report()
        #expect(
            now[.directOpens] == 2 && now[.opened] == 3 && now[.opened] == now[.directOpens] + now[.influencedOpens])
    }

    @Test(arguments: StoreBackend.allCases)
    func eventsOutsideTheWindowAndBadBatchesAreRefused(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let device = try w.install("phone").device
        w.world.clock.set(at(10 * 86_400))
        let results = try w.post(
            [
                DeviceWorld.event(.custom, at: at(2 * 86_400), data: DeviceEvent.customData(name: "old")),
                DeviceWorld.event(.custom, at: at(12 * 86_400), data: DeviceEvent.customData(name: "future")),
                DeviceWorld.event(.custom, at: at(9 * 86_400), data: DeviceEvent.customData(name: "fine")),
            ], from: device)
        #expect(results.map(\.status) == [.rejected, .rejected, .accepted])
        #expect(results[0].errors?["occurred_at"] != nil)
        let tooMany = (0...100).map { _ in
            DeviceWorld.event(.custom, at: at(9 * 86_400), data: DeviceEvent.customData(name: "x"))
        }
        #expect(throws: DeviceEventProblem.self) { try w.post(tooMany, from: device) }
        #expect(throws: DeviceEventProblem.self) { try w.post([], from: device) }
        #expect(throws: DeviceEventProblem.self) { try w.events.record(["events": "no"], from: device) }
        #expect(try w.store.read { try $0.deviceEvents.count(deviceID: device.id) } == 1)
    }

    @Test(arguments: StoreBackend.allCases)
    func aReportIsOfTheBusinesssOwnCampaign(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let campaign = try w.campaign()
        try w.store.transaction { tx in
            try tx.campaigns.count(.sent, by: 1_000_000, campaignID: campaign.id)
            try tx.campaigns.count(.delivered, by: 999_000, campaignID: campaign.id)
        }
        let report = try w.report(campaign)
        #expect(report[.sent] == 1_000_000 && report[.delivered] == 999_000 && report[.received] == 0)
        #expect(try w.events.report(businessID: w.business.id + 1, campaignID: campaign.id) == nil)
        #expect(try w.events.report(businessID: w.business.id, campaignID: campaign.id + 1) == nil)
    }
}
