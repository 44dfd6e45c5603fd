import HeraldModel

/// A campaign as stored: what it says, to whom, through which channels, when, within which limits — each part as
/// the JSON the admin API took (checked and read by the domain) — and where its sending stands.
package struct Campaign: Sendable, Equatable {
    /// Where a campaign stands.
    package struct Status: Sendable, Hashable, CustomStringConvertible {
        /// The status name, as stored and shown.
        package let rawValue: String
        /// The status named `rawValue`.
        package init(_ rawValue: String) { self.rawValue = rawValue }
        /// Being written; sends nothing.
        package static let draft = Status("draft")
        /// Launched: sending (or waiting for its time, or for visits).
        package static let running = Status("running")
        /// Stopped for now; launching again resumes where it stopped.
        package static let paused = Status("paused")
        /// Stopped for good: what was not sent yet never is.
        package static let cancelled = Status("cancelled")
        /// Every target was reached (one-shot triggers).
        package static let completed = Status("completed")
        package var description: String { rawValue }
    }

    /// Store id.
    package var id: Int64
    /// Owning business.
    package var businessID: Int64
    /// Its name.
    package var name: String
    /// The message: `{"headline","body","media"?,"cta"?,"survey_id"?}`.
    package var message: JSON
    /// Who: `{"segment_id"}`, `{"user_ids"}` or `{"all":true}`.
    package var audience: JSON
    /// `push`, `pull`, `inbox`.
    package var channels: [String]
    /// When: `{"type":"now"|"scheduled"|"geofence", …}`.
    package var trigger: JSON
    /// How often: cooldown, caps, throttle, quiet hours.
    package var limits: JSON
    /// A sandbox campaign reaches approved test devices only.
    package var sandbox: Bool
    /// Where it stands.
    package var status: Status
    /// The last device id its fan-out has handled: a restart resumes after it.
    package var fanoutCursor: Int64
    /// When sending starts (a scheduled trigger's time).
    package var startAt: Timestamp?
    /// When it was launched.
    package var launchedAt: Timestamp?
    /// When it completed or was cancelled.
    package var finishedAt: Timestamp?
    /// When it was created.
    package var createdAt: Timestamp
    /// When it last changed.
    package var updatedAt: Timestamp

    /// A campaign record.
    package init(
        id: Int64, businessID: Int64, name: String, message: JSON, audience: JSON, channels: [String], trigger: JSON,
        limits: JSON, sandbox: Bool, status: Status, fanoutCursor: Int64 = 0, startAt: Timestamp? = nil,
        launchedAt: Timestamp? = nil, finishedAt: Timestamp? = nil, createdAt: Timestamp, updatedAt: Timestamp
    ) {
        self.id = id
        self.businessID = businessID
        self.name = name
        self.message = message
        self.audience = audience
        self.channels = channels
        self.trigger = trigger
        self.limits = limits
        self.sandbox = sandbox
        self.status = status
        self.fanoutCursor = fanoutCursor
        self.startAt = startAt
        self.launchedAt = launchedAt
        self.finishedAt = finishedAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
