/// Where a delivery job stands.
public struct DeliveryStatus: Sendable, Hashable, CustomStringConvertible {
    /// The status name, as stored and shown.
    public let rawValue: String
    /// The status named `rawValue`.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Waiting for its time (first try, a retry, or a broken credential being fixed).
    public static let queued = DeliveryStatus("queued")
    /// Claimed by a worker under a lease.
    public static let sending = DeliveryStatus("sending")
    /// Accepted by Apple or Google.
    public static let delivered = DeliveryStatus("delivered")
    /// Given up: a permanent error, or retries exhausted.
    public static let failed = DeliveryStatus("failed")
    /// The token was dead (410 Unregistered, UNREGISTERED, …) and was removed.
    public static let pruned = DeliveryStatus("pruned")
    /// Not sent: the device's token was cleared or moved to another user before the send.
    public static let skipped = DeliveryStatus("skipped")

    /// True when the job will never be tried again.
    public var isFinal: Bool { self != .queued && self != .sending }

    public var description: String { rawValue }
}
