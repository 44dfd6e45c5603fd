import HeraldModel

/// A delivery job: one inbox entry to one device.
public struct Delivery: Sendable, Equatable {
    /// Store id.
    public var id: Int64
    /// The inbox entry sent.
    public var notificationID: Int64
    /// Owning business.
    public var businessID: Int64
    /// The device it goes to.
    public var deviceID: Int64
    /// APNs or FCM.
    public var platform: PushPlatform
    /// Where it stands.
    public var status: DeliveryStatus
    /// Send attempts so far.
    public var attempts: Int
    /// When it may next be tried (queued jobs).
    public var nextAttemptAt: Timestamp
    /// Why the last attempt ended as it did.
    public var lastReason: String?
    /// Apple's `apns-id` or FCM's message name, once delivered.
    public var providerMessageID: String?
    /// The `apns-id` sent with every attempt: stable, so retries are recognisable.
    public var apnsID: String
    /// When the job was created.
    public var createdAt: Timestamp
    /// When it last changed.
    public var updatedAt: Timestamp

    /// A delivery record.
    public init(
        id: Int64, notificationID: Int64, businessID: Int64, deviceID: Int64, platform: PushPlatform,
        status: DeliveryStatus, attempts: Int, nextAttemptAt: Timestamp, lastReason: String?,
        providerMessageID: String?, apnsID: String, createdAt: Timestamp, updatedAt: Timestamp
    ) {
        self.id = id
        self.notificationID = notificationID
        self.businessID = businessID
        self.deviceID = deviceID
        self.platform = platform
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastReason = lastReason
        self.providerMessageID = providerMessageID
        self.apnsID = apnsID
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A claimed job with everything a worker needs to send it. A class, though immutable: a job passes through the
/// engine's queue, its step, the provider's completion and the answer, and copying a struct of this many strings
/// at each hand-over cost a retain per field (a few per cent of a push's CPU).
public final class ClaimedDelivery: Sendable, Equatable {
    /// The job's id.
    public let id: Int64
    /// Attempts including this one.
    public let attempts: Int
    /// The stable `apns-id`.
    public let apnsID: String
    /// APNs or FCM.
    public let platform: PushPlatform
    /// The device's token now; nil when it was cleared since the job was created.
    public let token: String?
    /// When that token was set (compared with APNs' 410 timestamp).
    public let tokenUpdatedAt: Timestamp?
    /// The device.
    public let deviceID: Int64
    /// False when the device now belongs to another user: the job must not be sent.
    public let deviceBelongsToRecipient: Bool
    /// The inbox entry.
    public let notification: InboxEntry
    /// The recipient's unread count now: the push's badge.
    public let badge: Int

    /// For a campaign's message: the message as the campaign words it (`HeraldMessage` JSON, its id to fill in).
    public let campaignMessage: JSON?
    /// Whether the device is an SDK install (it draws FCM messages itself: they go data-only).
    public let deviceIsInstall: Bool
    /// For a campaign's message: where the campaign stands now (a paused one's pushes wait, a cancelled one's are
    /// not sent).
    public let campaignStatus: String?

    /// A claimed job.
    public init(
        id: Int64, attempts: Int, apnsID: String, platform: PushPlatform, token: String?, tokenUpdatedAt: Timestamp?,
        deviceID: Int64, deviceBelongsToRecipient: Bool, notification: InboxEntry, badge: Int,
        campaignMessage: JSON? = nil, deviceIsInstall: Bool = false, campaignStatus: String? = nil
    ) {
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

    public static func == (lhs: ClaimedDelivery, rhs: ClaimedDelivery) -> Bool {
        lhs === rhs
            || (lhs.id == rhs.id && lhs.attempts == rhs.attempts && lhs.apnsID == rhs.apnsID
                && lhs.platform == rhs.platform && lhs.token == rhs.token && lhs.tokenUpdatedAt == rhs.tokenUpdatedAt
                && lhs.deviceID == rhs.deviceID && lhs.deviceBelongsToRecipient == rhs.deviceBelongsToRecipient
                && lhs.notification == rhs.notification && lhs.badge == rhs.badge
                && lhs.campaignMessage == rhs.campaignMessage && lhs.deviceIsInstall == rhs.deviceIsInstall
                && lhs.campaignStatus == rhs.campaignStatus)
    }
}

/// How an attempt ended, as the worker reports it to the store.
public struct DeliveryCompletion: Sendable, Equatable {
    /// The outcome and what follows from it.
    public enum Outcome: Sendable, Equatable {
        /// Accepted; the provider's id for it. For APNs, nil when Apple answered with the job's own `apns-id` (the
        /// store keeps no second copy; the job reads back with it as its provider id).
        case delivered(providerMessageID: String?)
        /// Try again at `at`.
        case retry(at: Timestamp, reason: String)
        /// Wait until `until` without counting as failure (broken credential).
        case wait(until: Timestamp, reason: String)
        /// Give up.
        case failed(reason: String)
        /// The token is dead: clear it from the device unless it was set again after `unregisteredAt`.
        case pruned(reason: String, unregisteredAt: Timestamp?)
        /// Not sent (token cleared or moved).
        case skipped(reason: String)

        /// The job's status after it.
        public var status: DeliveryStatus {
            switch self {
            case .delivered: .delivered
            case .retry, .wait: .queued
            case .failed: .failed
            case .pruned: .pruned
            case .skipped: .skipped
            }
        }

        /// The reason recorded with it (none for a delivery).
        public var reason: String? {
            switch self {
            case .delivered: nil
            case .retry(_, let reason), .wait(_, let reason), .failed(let reason), .pruned(let reason, _),
                .skipped(let reason):
                reason
            }
        }
    }

    /// The job.
    public var id: Int64
    /// The lease holder reporting; a report from a holder whose lease was taken over is ignored.
    public var leaseOwner: String
    /// The outcome.
    public var outcome: Outcome
    /// For pruning: the device and the token that was sent.
    public var deviceID: Int64
    /// The token the attempt used.
    public var token: String?

    /// The campaign whose message it was (its counters count the outcome).
    public var campaignID: Int64?

    /// A completion report.
    public init(
        id: Int64, leaseOwner: String, outcome: Outcome, deviceID: Int64, token: String?, campaignID: Int64? = nil
    ) {
        self.campaignID = campaignID
        self.id = id
        self.leaseOwner = leaseOwner
        self.outcome = outcome
        self.deviceID = deviceID
        self.token = token
    }
}

/// Jobs per status, for `/metrics`.
public struct QueueDepth: Sendable, Equatable {
    /// Jobs waiting (including retries and credential waits).
    public var queued: Int
    /// Jobs due now.
    public var due: Int
    /// Jobs under a lease.
    public var sending: Int

    /// Counts.
    public init(queued: Int, due: Int, sending: Int) {
        self.queued = queued
        self.due = due
        self.sending = sending
    }
}
