import HeraldModel
import HeraldStore

/// A second writer, in the same module as `Writer.swift` but without the SPI import: neither call may compile.
func strayWrite(_ drafts: [NotificationDraft], device: Int64, in tx: StoreTransaction, at now: Timestamp) throws {
    let entries = try tx.inbox.insert(drafts.map { (draft: $0, createdAt: now) })
    let jobs = entries.map { (entry: $0, deviceID: device, platform: PushPlatform.apns, dueAt: now) }
    try tx.deliveries.enqueue(jobs, at: now)
}
