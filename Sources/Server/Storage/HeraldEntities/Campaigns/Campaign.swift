import HeraldModel

/// A campaign as stored: what it says, to whom, through which channels, when, within which limits — each part as
/// the JSON the admin API took (checked and read by the domain) — and where its sending stands.
public struct Campaign: Sendable, Equatable {
    /// Where a campaign stands.
    public struct Status: Sendable, Hashable, CustomStringConvertible {
        /// The status name, as stored and shown.
        public let rawValue: String
        /// The status named `rawValue`.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// Being written; sends nothing.
        public static let draft = Status("draft")
        /// Launched: sending (or waiting for its time, or for visits).
        public static let running = Status("running")
        /// Stopped for now; launching again resumes where it stopped.
        public static let paused = Status("paused")
        /// Stopped for good: what was not sent yet never is.
        public static let cancelled = Status("cancelled")
        /// Every target was reached (one-shot triggers).
        public static let completed = Status("completed")
        public var description: String { rawValue }
    }

    /// Store id.
    public var id: Int64
    /// Owning business.
    public var businessID: Int64
    /// Its name.
    public var name: String
    /// The message: `{"headline","body","media"?,"cta"?,"survey_id"?}`.
    public var message: JSON
    /// Who: `{"segment_id"}`, `{"user_ids"}` or `{"all":true}`.
    public var audience: JSON
    /// `push`, `pull`, `inbox`.
    public var channels: [String]
    /// When: `{"type":"now"|"scheduled"|"geofence", …}`.
    public var trigger: JSON
    /// How often: cooldown, caps, throttle, quiet hours.
    public var limits: JSON
    /// A sandbox campaign reaches approved test devices only.
    public var sandbox: Bool
    /// Where it stands.
    public var status: Status
    /// The last device id its fan-out has handled: a restart resumes after it.
    public var fanoutCursor: Int64
    /// When sending starts (a scheduled trigger's time).
    public var startAt: Timestamp?
    /// When it was launched.
    public var launchedAt: Timestamp?
    /// When it completed or was cancelled.
    public var finishedAt: Timestamp?
    /// When it was created.
    public var createdAt: Timestamp
    /// When it last changed.
    public var updatedAt: Timestamp

    /// A campaign record.
    public init(
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
