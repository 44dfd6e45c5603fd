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
