import HeraldDomain
import HeraldModel
import HeraldDeliveryPorts
import HeraldStore
import HeraldTesting
import Synchronization
import Testing

/// A `StoreFixture` with the device services over it, and the installs, campaigns, messages and events the device
/// tests make.
final class DeviceWorld: Sendable {
    let world: StoreFixture
    let devices: DeviceService
    let events: DeviceEventService
    private let serial = Mutex(0)

    init(
        _ backend: StoreBackend, options: DeviceService.Options = .init(),
        approvalCode: (@Sendable () -> String)? = nil
    ) throws {
        world = try StoreFixture(backend)
        world.clock.set(at(0))
        devices = DeviceService(
            store: world.store, clock: world.clock.wallClock, options: options,
            approvalCode: approvalCode ?? ApprovalCode.random)
        events = DeviceEventService(store: world.store, clock: world.clock.wallClock)
    }

    var store: Store { world.store }
    var business: Business { world.business }

    /// A new credential, different each time.
    func credential() -> IssuedCredential {
        let n = serial.withLock { value in
            value += 1
            return value
        }
        return IssuedCredential(keyID: "key-\(n)", sealedSecret: [UInt8(n % 256), 1, 2])
    }

    /// Everything an SDK reports, `token` as given.
    static func details(token: String?? = nil, segments: [String]? = nil, platform: PushPlatform = .apns)
        -> InstallDetails
    {
        InstallDetails(
            pushPlatform: platform, pushToken: token, apnsEnvironment: .some("production"), appVersion: "3.2.0",
            osVersion: "17.4", deviceModel: "iPhone15,2", locale: "en_US", timeZone: "America/New_York",
            sdkVersion: "1.0.0", notificationsEnabled: true, locationPermission: "when_in_use", segments: segments,
            userAgent: "HeraldSDK/1.0.0")
    }

    /// Registers install `id` (unsigned unless `signedBy`; with `proof` of a known device's user when given).
    @discardableResult
    func install(
        _ id: String, workspace: Install.Workspace = .live, token: String?? = nil, segments: [String]? = nil,
        signedBy: Int64? = nil, proof: OwnershipProof? = nil
    ) throws -> RegisteredInstall {
        try devices.register(
            installID: id, details: Self.details(token: token, segments: segments), business: business,
            workspace: workspace, credential: credential(), signedBy: signedBy, proof: proof)
    }

    /// A running campaign of the business.
    func campaign(_ name: String = "Spring") throws -> Campaign {
        let now = world.clock.now
        let business = business
        return try store.transaction { tx in
            try tx.campaigns.insert(
                Campaign(
                    id: 0, businessID: business.id, name: name, message: ["headline": "Hi", "body": "Hello"],
                    audience: ["all": true], channels: ["push", "pull"], trigger: ["type": "now"], limits: [:],
                    sandbox: false, status: .running, createdAt: now, updatedAt: now))
        }
    }

    /// A campaign's message to `device` (pushed when it has a token, pullable), as the fan-out writes it.
    @discardableResult
    func message(
        to device: Device, campaign: Campaign?, headline: String = "Spring sale", questions: JSON? = nil,
        trigger: String = "launch"
    ) throws -> InboxEntry {
        let draft = NotificationDraft.campaignMessage(
            businessID: business.id, userID: device.userID, deviceID: device.id, campaignID: campaign?.id,
            headline: headline, questions: questions, trigger: trigger)
        let now = world.clock.now
        let notifications = world.notifications
        return try store.transaction { tx in try notifications.publish(draft, in: tx, at: now) }
    }

    /// Marks every queued push delivered (Apple accepted it) at `time`.
    func deliverAll(at time: Timestamp) throws {
        let claimed = try store.deliveryQueue.claim(
            owner: "test", limit: 1000, leaseUntil: time.adding(.seconds(60)), at: time)
        try store.deliveryQueue.record(
            claimed.map {
                DeliveryCompletion(
                    id: $0.id, leaseOwner: "test", outcome: .delivered(providerMessageID: nil), deviceID: $0.deviceID,
                    token: $0.token)
            }, at: time)
    }

    /// An event's JSON, with a fresh UUID unless `id` is given.
    static func event(
        _ type: DeviceEventType, _ entry: InboxEntry? = nil, at time: Timestamp, id: String = UUIDString.random(),
        data: JSON? = nil
    ) -> JSON {
        DeviceEvent(id: id, type: type, occurredAt: time, notificationID: entry.map { String($0.id) }, data: data).json
    }

    /// Posts `events` from `device` now.
    func post(_ events: [JSON], from device: Device) throws -> [DeviceEventResult] {
        try self.events.record(.object([("events", .array(events))]), from: device)
    }

    /// A campaign's report.
    func report(_ campaign: Campaign) throws -> CampaignReport {
        try #require(try events.report(businessID: business.id, campaignID: campaign.id))
    }

    /// The device as stored now.
    func reload(_ device: Device) throws -> Device? { try devices.reload(device) }
}

/// `app.opened`'s data.
let appOpenedData = DeviceEvent.appOpenedData(sdkVersion: "1.0.0", appVersion: "3.2.0", osVersion: "17.4")

/// A 64-hex-digit APNs token from a number.
func apnsToken(_ n: Int) -> String {
    let hex = String(n, radix: 16)
    return String(repeating: "a", count: 64 - hex.count) + hex
}
