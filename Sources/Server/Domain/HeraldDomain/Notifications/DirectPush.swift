import HeraldModel
import HeraldStore

/// A push to raw device tokens, as gorush sends them: no user, no sign-up, the same durable queue and outcomes.
package struct DirectPush: Sendable {
    /// The platform of every token.
    package var platform: PushPlatform
    /// The tokens (APNs hex, or FCM registration tokens).
    package var tokens: [String]
    /// The alert's title.
    package var title: String
    /// The alert's subtitle.
    package var subtitle: String?
    /// The alert's body.
    package var body: String
    /// Keys added to the payload beside `aps` (APNs) or in `data` (FCM).
    package var data: JSON

    /// A push of `title` / `body` to `tokens`.
    package init(
        platform: PushPlatform, tokens: [String], title: String, subtitle: String? = nil, body: String,
        data: JSON = .object([])
    ) {
        self.platform = platform
        self.tokens = tokens
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.data = data
    }
}

extension NotificationService {
    /// Queues `push` for each of its tokens: the device holding the token (a known one keeps its user), or a new
    /// device of no user keyed by the token; one entry (not shown in any inbox) and one delivery job per token.
    /// Returns the entries' ids, in the tokens' order.
    package func send(_ push: DirectPush, businessID: Int64, in tx: StoreTransaction, at now: Timestamp) throws
        -> [Int64]
    {
        var ids: [Int64] = []
        for token in push.tokens {
            var device: Device
            if let holder = try tx.devices.find(businessID: businessID, platform: push.platform, token: token) {
                device = holder
            } else {
                device = try tx.devices.findOrInsert(
                    businessID: businessID, key: DeviceRegistration.directKey(push.platform, token: token), userID: nil,
                    platform: push.platform, at: now
                ).device
                device.token = token
                device.tokenUpdatedAt = now
                device.updatedAt = now
                try tx.devices.save(device)
            }
            let draft = NotificationDraft(
                businessID: businessID, userID: device.userID, kind: .news, event: "direct", title: push.title,
                subtitle: push.subtitle, body: push.body, extras: push.data, visibleInInbox: false, deviceID: device.id)
            ids.append(try publish(draft, in: tx, at: now).id)
        }
        return ids
    }
}
