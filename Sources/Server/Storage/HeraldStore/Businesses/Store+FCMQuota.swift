import HeraldModel

extension Store {
    /// Leases the next `duration` of the send time of `businessID`'s Firebase project at `now` (nil: the business has
    /// no FCM credential). Unannounced (`unannouncedTransaction`): a node leases about once a second while it sends.
    package func leaseFCMQuota(businessID: Int64, duration: Duration, at now: Timestamp) throws -> FCMQuotaLease? {
        try unannouncedTransaction { tx in
            guard let projectID = try tx.credentials.fcmProjectID(businessID: businessID) else { return nil }
            return try tx.fcmQuotas.lease(projectID: projectID, duration: duration, at: now)
        }
    }
}
