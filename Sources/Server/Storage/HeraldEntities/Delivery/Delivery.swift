import HeraldModel

/// A delivery job: one inbox entry to one device.
public struct Delivery: Sendable, Equatable {
    /// Store id.
    package var id: Int64
    /// The inbox entry sent.
    package var notificationID: Int64
    /// Owning business.
    package var businessID: Int64
    /// The device it goes to.
    package var deviceID: Int64
    /// APNs or FCM.
    package var platform: PushPlatform
    /// Where it stands.
    public var status: DeliveryStatus
    /// Send attempts so far.
    package var attempts: Int
    /// When it may next be tried (queued jobs).
    package var nextAttemptAt: Timestamp
    /// Why the last attempt ended as it did.
    package var lastReason: String?
    /// Apple's `apns-id` or FCM's message name, once delivered.
    package var providerMessageID: String?
    /// The `apns-id` sent with every attempt: stable, so retries are recognisable.
    package var apnsID: String
    /// When the job was created.
    package var createdAt: Timestamp
    /// When it last changed.
    package var updatedAt: Timestamp

    /// A delivery record.
    package init(
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
