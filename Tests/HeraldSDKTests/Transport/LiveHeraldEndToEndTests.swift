import Foundation
import HeraldCrypto
import HeraldDomain
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

@testable import HeraldSDK

/// The SDK as an app runs it — its real `URLSessionTransport`, its registration, signing and event queue — against a
/// whole Herald in this process: every call the SDK makes is one the server accepts, and what the SDK records is
/// what the campaign report counts.
@Suite(.serialized, .tags(.endToEnd)) struct LiveHeraldEndToEndTests {
    /// A client of `herald` for `apiKey`, on real storage, whose clock is `skew` off the server's.
    static func client(
        _ herald: LiveHerald, apiKey: String, directory: URL, presenter: RecordingPresenter,
        skew: Duration = .zero
    ) throws -> HeraldClient {
        let configuration = HeraldConfiguration(
            apiKey: apiKey, baseURL: "http://127.0.0.1:\(herald.port)",
            device: DeviceInfo(
                platform: "ios", appVersion: "3.2", osVersion: "17.4", deviceModel: "iPhone15,2", locale: "en_US",
                timezone: "America/New_York"))
        let deviceClock = WallClock { WallClock.system.now().adding(skew) }
        let environment = HeraldEnvironment(
            transport: ValidatingTransport(transport: URLSessionTransport()),
            storage: try FileStorage(directory: directory), clock: deviceClock,
            scheduler: ManualScheduler(clock: TestClock()), random: .system, presenter: presenter,
            regionMonitor: RecordingRegionMonitor(), urlOpener: RecordingOpener())
        return HeraldClient(configuration: configuration, environment: environment)
    }

    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("herald-sdk-live-\(UUID().uuidString)")
    }

    /// A campaign's message to the install, written as the fan-out writes it.
    static func publish(
        _ herald: LiveHerald, to device: Device, campaign: Campaign, headline: String, questions: JSON? = nil
    ) throws -> InboxEntry {
        var message: [(key: String, value: JSON)] = [
            ("type", questions == nil ? "message" : "survey"), ("headline", .string(headline)), ("body", "Half off"),
            ("sandbox", false), ("cta", ["label": "Order", "url": "https://example.com/order"]),
        ]
        if let questions { message.append(("questions", questions)) }
        let draft = NotificationDraft(
            businessID: device.businessID, userID: device.userID, kind: .campaign, event: "campaign", title: headline,
            body: "Half off", campaignID: campaign.id, triggerKey: headline, deviceID: device.id,
            message: .object(message), pullable: true)
        return try herald.store.transaction { tx in
            try NotificationService().publish(draft, in: tx, at: WallClock.system.now())
        }
    }

    @Test func theSDKAndHeraldAgreeFromRegistrationToDeletion() async throws {
        let herald = try LiveHerald(transport: .socket) { $0.delivery.enabled = false }
        let business = try herald.createBusiness()
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let presenter = RecordingPresenter()
        // The phone's clock is 10 minutes slow: its first signed call is refused, and it signs with the server's
        // time (the 401's Date) from then on.
        let client = try Self.client(
            herald, apiKey: business.apiKey, directory: directory, presenter: presenter, skew: .seconds(-600))
        await client.start()
        await client.setForeground(true)
        let token: [UInt8] = (0..<32).map { UInt8($0 * 7 % 256) }
        await client.setPushToken(token)
        try await client.setSegments(["vip", "beta"])
        await client.setPermissions(Permissions(notifications: true, location: .always))

        let installID = try await client.installID()
        let device = try #require(
            try herald.store.read { try $0.devices.find(businessID: business.id, key: installID) })
        #expect(device.token == HexEncoding.encode(token))
        #expect(device.install?.locationPermission == "always" && device.install?.timeZone == "America/New_York")
        #expect(try herald.store.read { try $0.devices.segments(id: device.id) } == ["beta", "vip"])
        #expect(await client.session.clockOffsetSeconds >= 590, "signing with the server's time")

        // Two messages: a survey it pulls, and a message whose push left it out (fetched by id when tapped).
        let campaign = try herald.store.transaction { tx in
            try tx.campaigns.insert(
                Campaign(
                    id: 0, businessID: business.id, name: "Spring", message: [:], audience: ["all": true],
                    channels: ["push", "pull"], trigger: ["type": "now"], limits: [:], sandbox: false,
                    status: .completed, createdAt: WallClock.system.now(), updatedAt: WallClock.system.now()))
        }
        let survey = try Self.publish(
            herald, to: device, campaign: campaign, headline: "How was it?",
            questions: [["id": "stars", "text": "Rate us", "type": "rating", "required": true]])
        let pulled = try await client.pull()
        #expect(pulled.map(\.id) == [String(survey.id)])
        #expect(pulled.first?.isSurvey == true && pulled.first?.campaignID == String(campaign.id))
        // The card's bridge, as the web view hands it what the card posts.
        let card = CardBridge(screen: try #require(presenter.screens.first))
        let id = String(survey.id)
        for posted in [
            #"{"type":"survey_started","message_id":"\#(id)"}"#,
            #"{"type":"survey_submitted","message_id":"\#(id)","answers":[{"question_id":"stars","value":4}]}"#,
            #"{"type":"dismissed","message_id":"\#(id)"}"#,
        ] {
            _ = await card.receive(posted)
        }
        #expect(try await client.pull().isEmpty, "each message once")

        let offer = try Self.publish(herald, to: device, campaign: campaign, headline: "Half off today")
        let push = MessagePush.apnsPayload(for: offer.deviceMessage(), maximumSize: 200)
        let handled = await client.handlePush(try JSON.parse(push), tapped: true)
        #expect(handled == .handled(.shownOnScreen), "\(handled)")
        let offerScreen = try #require(presenter.screens.last)
        #expect(offerScreen.message.id == String(offer.id) && offerScreen.message.headline == "Half off today")
        #expect(await offerScreen.openCTA() == .opened("https://example.com/order"))
        await client.appDidBecomeActive()

        await client.flushEvents()
        #expect(client.pendingEvents.isEmpty, "every event accepted: \(client.pendingEvents.map(\.type))")
        let report = try herald.store.read { tx in try tx.campaigns.counters(campaignID: campaign.id) }
        #expect(report["received"] == 2 && report["displayed"] == 2, "\(report)")
        #expect(report["survey_started"] == 1 && report["survey_submitted"] == 1 && report["dismissed"] == 1)
        #expect(report["direct_opens"] == 1 && report["opened"] == 1 && report["cta_clicked"] == 1)
        #expect(try herald.store.read { try $0.deviceEvents.count(deviceID: device.id) } >= 8)

        // Delete my data: the server keeps nothing of the install, and its credential is dead.
        try await client.deleteMyData()
        try herald.store.read { tx throws in
            #expect(try tx.devices.find(id: device.id) == nil)
            #expect(try tx.deviceEvents.count(deviceID: device.id) == 0)
            #expect(try tx.inbox.find(id: offer.id) == nil)
        }
        let stale = herald.deviceClient(installID: installID)
        stale.keyID = device.install?.keyID
        stale.secret = "whatever"
        #expect(try stale.call("POST", "/api/v1/notifications/pull").status == 401)
        // Started again, it is a new install.
        await client.start()
        let again = try await client.installID()
        #expect(again != installID)
        #expect(try herald.store.read { try $0.devices.find(businessID: business.id, key: again) } != nil)
    }

    @Test func aSandboxInstallLearnsItsStandingAndAServerThatForgotItIsRegisteredAgain() async throws {
        let herald = try LiveHerald(transport: .socket) { $0.delivery.enabled = false }
        let business = try herald.createBusiness()
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = try Self.client(
            herald, apiKey: business.sandboxAPIKey, directory: directory, presenter: RecordingPresenter())
        await client.start()
        let standing = try #require(await client.testDevice())
        #expect(standing.status == "pending" && standing.approvalCode.count == 8)
        let approved = try herald.admin(
            "POST", "/api/admin/businesses/\(business.id)/test-devices",
            json: JSON.object([("approval_code", .string(standing.approvalCode))]).encodedString)
        #expect(approved.status == 200, "\(approved)")

        // The server loses the install (deleted by an admin, say): the next signed call is a 401, and the SDK
        // registers again — a fresh install record, pending again — and retries.
        let installID = try await client.installID()
        let device = try #require(
            try herald.store.read { try $0.devices.find(businessID: business.id, key: installID) })
        try herald.store.transaction { try $0.devices.delete(id: device.id) }
        #expect(try await client.pull().isEmpty)
        let fresh = try #require(
            try herald.store.read { try $0.devices.find(businessID: business.id, key: installID) })
        #expect(fresh.id != device.id && fresh.install?.testStatus == "pending")
        #expect(await client.testDevice()?.status == "pending")
    }
}

/// `Herald.identify` and `Herald.logout` against a whole Herald: the install belongs to the user the import knows by
/// that external id, so the user's attributes and messages reach it, and stop when it logs out.
@Suite(.serialized, .tags(.endToEnd)) struct LiveHeraldIdentityTests {
    /// How many devices the segment `filter` reaches now.
    static func count(_ herald: LiveHerald, _ path: String, _ filter: String) throws -> Int64? {
        try JSON.parse(try herald.admin("POST", path, json: filter).body)["count"]?.int64Value
    }

    @Test func identifyLinksTheInstallToTheImportedUserAndLogoutUnlinksIt() async throws {
        let herald = try LiveHerald(transport: .socket) { $0.delivery.enabled = false }
        let business = try herald.createBusiness()
        let directory = LiveHeraldEndToEndTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let admin = [("Authorization", "Bearer \(herald.adminToken)"), ("Content-Type", "application/x-ndjson")]
        let imported = try herald.client().request(
            "POST", "/api/admin/businesses/\(business.id)/users/import", headers: admin,
            body: Array(#"{"external_id":"cust-42","attributes":{"tier":"gold"}}"#.utf8))
        #expect(imported.status == 200, "\(imported)")
        let keyResponse = try herald.admin("GET", "/api/admin/businesses/\(business.id)/identity-key")
        let key = try #require(try JSON.parse(keyResponse.body)["identity_key"]?.stringValue, "\(keyResponse)")
        // What the business's backend computes when its user logs in, handed to the app.
        let token = Hex.encode(
            HeraldCrypto.HMACSHA256.authenticationCode(for: Array("cust-42".utf8), key: Array(key.utf8)))

        let client = try LiveHeraldEndToEndTests.client(
            herald, apiKey: business.apiKey, directory: directory, presenter: RecordingPresenter())
        await client.start()
        try await client.identify(externalID: "cust-42", identityToken: token)
        let installID = try await client.installID()
        let user = try #require(
            try herald.store.read { try $0.users.find(businessID: business.id, externalIDs: ["cust-42"]) }.first)
        let device = try #require(
            try herald.store.read { try $0.devices.find(businessID: business.id, key: installID) })
        #expect(device.userID == user.id)
        let gold = #"{"filter":{"attribute":"tier","op":"eq","value":"gold"}}"#
        let segments = "/api/admin/businesses/\(business.id)/segments/count"
        #expect(try Self.count(herald, segments, gold) == 1)

        // A campaign's message to the user: the install fetches it by id while it belongs to them.
        let campaign = try herald.store.transaction { tx in
            try tx.campaigns.insert(
                Campaign(
                    id: 0, businessID: business.id, name: "Gold", message: [:], audience: ["user_ids": [1]],
                    channels: ["push"], trigger: ["type": "now"], limits: [:], sandbox: false, status: .completed,
                    createdAt: WallClock.system.now(), updatedAt: WallClock.system.now()))
        }
        let draft = NotificationDraft(
            businessID: business.id, userID: user.id, kind: .campaign, event: "campaign", title: "Gold only",
            body: "For you", campaignID: campaign.id, triggerKey: "gold", deviceID: nil,
            message: ["type": "message", "headline": "Gold only", "body": "For you", "sandbox": false],
            pullable: false)
        let entry = try herald.store.transaction { tx in
            try NotificationService().publish(draft, in: tx, at: WallClock.system.now())
        }
        #expect(try await client.fetchMessage(id: String(entry.id)).headline == "Gold only")

        try await client.logout()
        #expect(try herald.store.read { try $0.devices.find(id: device.id) }?.userID == nil)
        #expect(try Self.count(herald, segments, gold) == 0)
        await #expect(throws: HeraldError(code: .rejected, status: 404)) {
            try await client.fetchMessage(id: String(entry.id))
        }
        // An id the backend didn't vouch for: refused, and the install belongs to nobody.
        await #expect(throws: HeraldError(code: .rejected, status: 403)) {
            try await client.identify(externalID: "someone-else", identityToken: token)
        }
        #expect(try herald.store.read { try $0.devices.find(id: device.id) }?.userID == nil)
        #expect(await client.externalID() == nil)
    }

    @Test(.bug(id: "issue-40-6", "a reinstalled app's install held the phone's token beside the old user's device"))
    func aReinstalledAppTakesThePhonesTokenOnlyOnceIdentified() async throws {
        let herald = try LiveHerald(transport: .socket) { $0.delivery.enabled = false }
        let business = try herald.createBusiness()
        let directory = LiveHeraldEndToEndTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func device(_ key: String) throws -> Device? {
            try herald.store.read { try $0.devices.find(businessID: business.id, key: key) }
        }
        // Ann signed in on the phone through the Punchh API with its token, and never logged out.
        let pushToken: [UInt8] = (0..<32).map { UInt8($0 * 11 % 256) }
        let hex = HexEncoding.encode(pushToken)
        let ann = herald.mobileClient(for: business, deviceID: "ann-iphone")
        #expect(try ann.signUp(email: "ann@example.com", token: hex).status == 200)

        // The app, deleted and installed again, registers the phone's token: an install of nobody takes nothing
        // from Ann's device.
        let client = try LiveHeraldEndToEndTests.client(
            herald, apiKey: business.apiKey, directory: directory, presenter: RecordingPresenter())
        await client.start()
        await client.setPushToken(pushToken)
        let installID = try await client.installID()
        #expect(try device(installID)?.token == nil)
        #expect(try device("ann-iphone")?.token == hex)

        // Eve signs in, and the app identifies the install as hers: the SDK sends its details again at once, and
        // the phone's token is the install's alone.
        let keyResponse = try herald.admin("GET", "/api/admin/businesses/\(business.id)/identity-key")
        let key = try #require(try JSON.parse(keyResponse.body)["identity_key"]?.stringValue, "\(keyResponse)")
        let identityToken = Hex.encode(
            HeraldCrypto.HMACSHA256.authenticationCode(for: Array("cust-eve".utf8), key: Array(key.utf8)))
        try await client.identify(externalID: "cust-eve", identityToken: identityToken)
        let identified = try #require(try device(installID))
        #expect(identified.userID != nil && identified.token == hex, "\(identified)")
        #expect(try device("ann-iphone")?.token == nil)
    }
}
