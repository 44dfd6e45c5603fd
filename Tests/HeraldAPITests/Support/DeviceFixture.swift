import HeraldDomain
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// The device API's test calls: installs registered as the SDK does, campaigns and their messages written as the
/// fan-out writes them (through `NotificationService.publish`), what the store holds about an install.
extension ServerFixture {
    /// An install of the business registered with its live key (or its sandbox key); the test stops unless the
    /// registration answered 201.
    func install(
        _ installID: String = UUIDString.random(), sandbox: Bool = false, _ fields: [(String, JSON)] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> DeviceTestClient {
        let phone = herald.deviceClient(installID: installID)
        let response = try phone.register(apiKey: sandbox ? business.sandboxAPIKey : business.apiKey, fields)
        try #require(response.status == 201, "registration failed: \(response)", sourceLocation: sourceLocation)
        return phone
    }

    /// The device an install id names, as stored.
    func device(_ installID: String) throws -> Device? {
        let businessID = business.id
        return try store.read { try $0.devices.find(businessID: businessID, key: installID) }
    }

    /// A campaign of the business whose messages the test writes itself (completed: the runner fans none out).
    func campaign(_ name: String = "Spring") throws -> Campaign {
        let businessID = business.id
        let now = WallClock.system.now()
        return try store.transaction { tx in
            try tx.campaigns.insert(
                Campaign(
                    id: 0, businessID: businessID, name: name, message: ["headline": "Hi", "body": "Hello"],
                    audience: ["all": true], channels: ["push", "pull"], trigger: ["type": "now"], limits: [:],
                    sandbox: false, status: .completed, createdAt: now, updatedAt: now))
        }
    }

    /// A campaign's message to install `installID`: pullable, and pushed when the install has a token.
    @discardableResult
    func message(
        to installID: String, campaign: Campaign?, headline: String = "Spring sale", questions: JSON? = nil,
        trigger: String = UUIDString.random(), sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> InboxEntry {
        let device = try #require(try device(installID), sourceLocation: sourceLocation)
        let draft = NotificationDraft.campaignMessage(
            businessID: business.id, userID: device.userID, deviceID: device.id, campaignID: campaign?.id,
            headline: headline, questions: questions, trigger: trigger)
        let now = WallClock.system.now()
        return try store.transaction { tx in try NotificationService().publish(draft, in: tx, at: now) }
    }

    /// `GET /api/admin/businesses/{id}/campaigns/{cid}/report`'s answer; the test stops unless it is 200.
    func report(_ campaign: Campaign, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        let response = try herald.admin("GET", "/api/admin/businesses/\(business.id)/campaigns/\(campaign.id)/report")
        try #require(response.status == 200, "report failed: \(response)", sourceLocation: sourceLocation)
        return try #require(response.value, sourceLocation: sourceLocation)
    }
}

extension DeviceTestClient {
    /// `POST /api/v1/events` with `events`.
    func post(_ events: [JSON]) throws -> TestHTTPClient.Response {
        try call("POST", "/api/v1/events", json: .object([("events", .array(events))]))
    }

    /// `POST /api/v1/notifications/pull`: the messages' JSON; the test stops unless it is 200.
    func pull(sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSON] {
        // A nonce in the (signed, otherwise unread) body: pulls in one second are distinct pulls, not replays.
        let response = try call("POST", "/api/v1/notifications/pull", json: ["nonce": .string(UUIDString.random())])
        try #require(response.status == 200, "pull failed: \(response)", sourceLocation: sourceLocation)
        return try #require(response.value?["data"]?.arrayValue, sourceLocation: sourceLocation)
    }
}

/// An event as the SDK sends it.
func deviceEvent(
    _ type: DeviceEventType, _ entry: InboxEntry? = nil, id: String = UUIDString.random(), data: JSON? = nil,
    at time: Timestamp = WallClock.system.now()
) -> JSON {
    DeviceEvent(id: id, type: type, occurredAt: time, notificationID: entry.map { String($0.id) }, data: data).json
}
