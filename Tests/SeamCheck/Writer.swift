import HeraldModel
@_spi(NotificationWriter) import HeraldStore

/// What `NotificationService` does: with the writer's SPI imported, entries and jobs can be written.
func write(_ drafts: [NotificationDraft], device: Int64, in tx: StoreTransaction, at now: Timestamp) throws {
    let entries = try tx.inbox.insert(drafts.map { (draft: $0, createdAt: now) })
    let jobs = entries.map { (entry: $0, deviceID: device, platform: PushPlatform.apns, dueAt: now) }
    try tx.deliveries.enqueue(jobs, at: now)
}
