import HeraldModel

/// How an attempt ended, as the worker reports it to the store.
package struct DeliveryCompletion: Sendable, Equatable {
    /// The outcome and what follows from it.
    package enum Outcome: Sendable, Equatable {
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
        package var status: DeliveryStatus {
            switch self {
            case .delivered: .delivered
            case .retry, .wait: .queued
            case .failed: .failed
            case .pruned: .pruned
            case .skipped: .skipped
            }
        }

        /// The reason recorded with it (none for a delivery).
        package var reason: String? {
            switch self {
            case .delivered: nil
            case .retry(_, let reason), .wait(_, let reason), .failed(let reason), .pruned(let reason, _),
                .skipped(let reason):
                reason
            }
        }
    }

    /// The job.
    package var id: Int64
    /// The lease holder reporting; a report from a holder whose lease was taken over is ignored.
    package var leaseOwner: String
    /// The outcome.
    package var outcome: Outcome
    /// For pruning: the device and the token that was sent.
    package var deviceID: Int64
    /// The token the attempt used.
    package var token: String?

    /// The campaign whose message it was (its counters count the outcome).
    package var campaignID: Int64?
    /// The APNs environment to remember for the device while it holds `token`: Apple's host of that environment took
    /// the push after the other one refused the token (`PushResult.delivered`'s `apnsEnvironment`).
    package var apnsEnvironment: String?

    /// A completion report.
    package init(
        id: Int64, leaseOwner: String, outcome: Outcome, deviceID: Int64, token: String?, campaignID: Int64? = nil,
        apnsEnvironment: String? = nil
    ) {
        self.apnsEnvironment = apnsEnvironment
        self.campaignID = campaignID
        self.id = id
        self.leaseOwner = leaseOwner
        self.outcome = outcome
        self.deviceID = deviceID
        self.token = token
    }
}

extension DeliveryCompletion {
    /// What `owner` reports of claimed `job`: `outcome`, for its device and the token it was sent to.
    package init(_ job: ClaimedDelivery, owner: String, outcome: Outcome, apnsEnvironment: String? = nil) {
        self.init(
            id: job.id, leaseOwner: owner, outcome: outcome, deviceID: job.deviceID, token: job.token,
            campaignID: job.notification.campaignID, apnsEnvironment: apnsEnvironment)
    }
}
