/// The card's player, headless: nothing plays until Play; the first Play records `media.viewed` (with where it
/// started), reaching the end records `media.completed`, each once per screen.
///
/// ```swift
/// var playback = MediaPlayback()
/// playback.play()                                  // [.viewed(positionSeconds: 0)]
/// playback.progress(position: 29.6, duration: 30)  // [.completed]
/// ```
public struct MediaPlayback: Sendable, Equatable {
    /// Where the player is.
    public enum State: Sendable, Equatable {
        /// Not started: shows the Play button (and the thumbnail).
        case idle
        /// Playing.
        case playing
        /// Paused.
        case paused
        /// Played to the end.
        case finished
    }

    /// What a player change records.
    public enum Report: Sendable, Equatable {
        /// `media.viewed` with `position_seconds`.
        case viewed(positionSeconds: Double)
        /// `media.completed`.
        case completed
    }

    /// The state; `idle` until the user taps Play.
    public private(set) var state: State = .idle
    /// The position in seconds.
    public private(set) var position: Double = 0
    /// The length in seconds, once known.
    public private(set) var duration: Double?
    private var viewed = false
    private var completed = false

    /// How close to the end counts as the end, in seconds (players often stop a fraction short).
    public static let endTolerance = 1.0

    /// A player that plays nothing yet.
    public init() {}

    /// True while playing.
    public var isPlaying: Bool { state == .playing }

    /// The user tapped Play (or played again after the end, from the start).
    public mutating func play() -> [Report] {
        guard state != .playing else { return [] }
        if state == .finished { position = 0 }
        state = .playing
        guard !viewed else { return [] }
        viewed = true
        return [.viewed(positionSeconds: position)]
    }

    /// The user tapped Pause.
    public mutating func pause() {
        if state == .playing { state = .paused }
    }

    /// The user moved the seek bar.
    public mutating func seek(to seconds: Double) {
        guard seconds.isFinite else { return }
        position = max(0, duration.map { min(seconds, $0) } ?? seconds)
        if state == .finished { state = .paused }
    }

    /// The player reported where it is; reaching the end (within `endTolerance`) finishes.
    public mutating func progress(position seconds: Double, duration total: Double?) -> [Report] {
        if let total, total.isFinite, total > 0 { duration = total }
        guard seconds.isFinite, state == .playing else { return [] }
        position = max(0, seconds)
        if let duration, position >= duration - Self.endTolerance { return finish() }
        return []
    }

    /// The player reached the end.
    public mutating func finish() -> [Report] {
        guard state == .playing || state == .paused else { return [] }
        state = .finished
        if let duration { position = duration }
        guard !completed else { return [] }
        completed = true
        return [.completed]
    }

    /// The screen closed: stops playing.
    public mutating func stop() {
        if state == .playing { state = .paused }
    }
}
