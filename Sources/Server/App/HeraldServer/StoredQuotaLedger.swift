import HeraldDeliveryPorts
import HeraldDelivery
import HeraldModel
import HeraldStore

/// FCM's send quota per Firebase project, kept in the database (`fcm_quotas`) and leased by every node on it a second
/// or so at a time: nodes sending for one project (one business, or several with the same service account's project)
/// keep to its quota together.
package struct StoredQuotaLedger: QuotaLedger {
    let store: Store

    /// The quotas in `store`.
    package init(store: Store) { self.store = store }

    package func lease(businessID: Int64, duration: Duration, defaultPerMinute: Int, at now: Timestamp) throws
        -> QuotaGrant?
    {
        try store.leaseFCMQuota(businessID: businessID, duration: duration, at: now).map {
            QuotaGrant(start: $0.start, end: $0.end, perMinute: $0.quotaPerMinute ?? defaultPerMinute)
        }
    }
}
