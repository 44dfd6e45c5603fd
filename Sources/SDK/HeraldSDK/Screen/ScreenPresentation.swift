/// What presenting a notification screen on a stage would meet now.
public enum PresentationStageState: Sendable, Equatable {
    /// A window is in front and nothing is on its way on or off it: a screen may be presented.
    case ready
    /// A presentation or dismissal is still running (the card before this one leaving, an alert coming): UIKit
    /// refuses another until it ends.
    case busy
    /// No window in front to present over (a tap that launched the app, before its first window).
    case absent
}

/// Where notification screens are presented: on iOS, the top of the app's view controllers.
public protocol PresentationStage: Sendable {
    /// What presenting would meet now.
    func state() async -> PresentationStageState
    /// Presents `screen` now; answers whether the stage took it (false: refused, e.g. a transition began since
    /// `state()`).
    func present(_ screen: NotificationScreen) async -> Bool
}

/// Presents a notification screen when its stage can take it: asked while another transition runs, or before the
/// app has a window, it asks again every `interval`, up to `attempts` times. It counts as shown only once the stage
/// took it; a screen it never could present is not shown, and the SDK shows the message another way (a system
/// notification, or the push's own banner).
///
/// ```swift
/// let shown = await ScreenPresentation().present(screen, on: stage)
/// ```
public struct ScreenPresentation: Sendable {
    /// How many times the stage is asked, at most.
    public var attempts: Int
    /// How long to wait between two asks.
    public var interval: Duration

    /// Asks every `interval` for up to `patience` (5 seconds, a tenth of a second apart, unless told).
    public init(patience: Duration = .seconds(5), interval: Duration = .milliseconds(100)) {
        self.interval = interval
        attempts = interval > .zero ? max(1, Int(patience / interval) + 1) : 1
    }

    /// Presents `screen` on `stage` once it is ready; answers whether it was presented.
    public func present(_ screen: NotificationScreen, on stage: some PresentationStage) async -> Bool {
        for attempt in 0..<attempts {
            if attempt > 0 {
                do { try await Task.sleep(for: interval) } catch { return false }  // cancelled: not shown
            }
            if await stage.state() == .ready, await stage.present(screen) { return true }
        }
        return false
    }
}
