import HeraldModel

extension Store {
    /// Leases the next `duration` of the send time of `businessID`'s Firebase project at `now` (nil: the business has
    /// no FCM credential). Written without telling the caches or the other nodes of a change: a node leases about once
    /// a second while it sends, and nothing a cache holds depends on it (like the delivery queue's own writes).
    package func leaseFCMQuota(businessID: Int64, duration: Duration, at now: Timestamp) throws -> FCMQuotaLease? {
        try database.write { connection in
            let tx = StoreTransaction(connection: connection, dialect: database.dialect, makeUUID: { "" })
            guard let projectID = try tx.credentials.fcmProjectID(businessID: businessID) else { return nil }
            return try tx.fcmQuotas.lease(projectID: projectID, duration: duration, at: now)
        }
    }
}
