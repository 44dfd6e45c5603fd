import HeraldModel

/// A claimed job with everything a worker needs to send it. A class, though immutable: a job passes through the
/// engine's queue, its step, the provider's completion and the answer, and copying a struct of this many strings
/// at each hand-over cost a retain per field (a few per cent of a push's CPU).
package final class ClaimedDelivery: Sendable, Equatable {
    /// The job's id.
    package let id: Int64
    /// Attempts including this one.
    package let attempts: Int
    /// The stable `apns-id`.
    package let apnsID: String
    /// APNs or FCM.
    package let platform: PushPlatform
    /// The device's token now; nil when it was cleared since the job was created.
    package let token: String?
    /// When that token was set (compared with APNs' 410 timestamp).
    package let tokenUpdatedAt: Timestamp?
    /// The device.
    package let deviceID: Int64
    /// False when the device now belongs to another user: the job must not be sent.
    package let deviceBelongsToRecipient: Bool
    /// The inbox entry it sends.
    package let notification: QueuedNotification
    /// The recipient's unread count now: the push's badge.
    package let badge: Int

    /// For a campaign's message: the message as the campaign words it (`HeraldMessage` JSON, its id to fill in).
    package let campaignMessage: JSON?
    /// Whether the device is an SDK install (a campaign's push to it carries the campaign's message for the SDK).
    package let deviceIsInstall: Bool
    /// The device's APNs environment (`sandbox` or `production`), as the install reported it or as Apple's hosts
    /// showed it; nil: the credential's.
    package let apnsEnvironment: String?
    /// For a campaign's message: where the campaign stands now (a paused one's pushes wait, a cancelled one's are
    /// not sent).
    package let campaignStatus: String?

    /// A claimed job.
    package init(
        id: Int64, attempts: Int, apnsID: String, platform: PushPlatform, token: String?, tokenUpdatedAt: Timestamp?,
        deviceID: Int64, deviceBelongsToRecipient: Bool, notification: QueuedNotification, badge: Int,
        campaignMessage: JSON? = nil, deviceIsInstall: Bool = false, campaignStatus: String? = nil,
        apnsEnvironment: String? = nil
    ) {
        self.apnsEnvironment = apnsEnvironment
        self.campaignStatus = campaignStatus
        self.campaignMessage = campaignMessage
        self.deviceIsInstall = deviceIsInstall
        self.id = id
        self.attempts = attempts
        self.apnsID = apnsID
        self.platform = platform
        self.token = token
        self.tokenUpdatedAt = tokenUpdatedAt
        self.deviceID = deviceID
        self.deviceBelongsToRecipient = deviceBelongsToRecipient
        self.notification = notification
        self.badge = badge
    }

    package static func == (lhs: ClaimedDelivery, rhs: ClaimedDelivery) -> Bool {
        lhs === rhs
            || (lhs.id == rhs.id && lhs.attempts == rhs.attempts && lhs.apnsID == rhs.apnsID
                && lhs.platform == rhs.platform && lhs.token == rhs.token && lhs.tokenUpdatedAt == rhs.tokenUpdatedAt
                && lhs.deviceID == rhs.deviceID && lhs.deviceBelongsToRecipient == rhs.deviceBelongsToRecipient
                && lhs.notification == rhs.notification && lhs.badge == rhs.badge
                && lhs.campaignMessage == rhs.campaignMessage && lhs.deviceIsInstall == rhs.deviceIsInstall
                && lhs.campaignStatus == rhs.campaignStatus && lhs.apnsEnvironment == rhs.apnsEnvironment)
    }
}
