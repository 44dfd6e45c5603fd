/// Whether the app is in front, worked out from what UIKit posts — the application's notifications (every app) and
/// each scene's (scene-based and SwiftUI apps) — so that coming to the front counts once however many of them arrive,
/// and the app is in the background only when its last scene is.
///
/// ```swift
/// var tracker = LifecycleTracker()
/// tracker.handle(.becameActive(.scene("A")))  // .cameToFront
/// tracker.handle(.becameActive(.app))         // nil: already in front
/// tracker.handle(.enteredBackground(.app))    // .wentToBackground
/// ```
struct LifecycleTracker: Sendable, Equatable {
    /// Who posted a notification.
    enum Source: Sendable, Hashable {
        /// `UIApplication` (or the app forwarding its delegate's calls).
        case app
        /// A scene, by its session's persistent identifier.
        case scene(String)
    }

    /// What UIKit said.
    enum Event: Sendable, Hashable {
        /// `didBecomeActive` / `didActivate`.
        case becameActive(Source)
        /// `willEnterForeground`.
        case willEnterForeground(Source)
        /// `didEnterBackground`.
        case enteredBackground(Source)
    }

    /// What the SDK acts on.
    enum Transition: Sendable, Equatable {
        /// `app.opened`, a pull, the registration refreshed, permissions read again.
        case cameToFront
        /// New notifications become system notifications.
        case wentToBackground
    }

    /// True while the app is in front.
    private(set) var isInFront = false
    private var scenesInFront: Set<String> = []

    /// The transition `event` makes, if any.
    mutating func handle(_ event: Event) -> Transition? {
        switch event {
        case .becameActive(let source), .willEnterForeground(let source):
            if case .scene(let id) = source { scenesInFront.insert(id) }
            guard !isInFront else { return nil }
            isInFront = true
            return .cameToFront
        case .enteredBackground(.scene(let id)):
            scenesInFront.remove(id)
            guard isInFront, scenesInFront.isEmpty else { return nil }
            isInFront = false
            return .wentToBackground
        case .enteredBackground(.app):
            scenesInFront.removeAll()
            guard isInFront else { return nil }
            isInFront = false
            return .wentToBackground
        }
    }
}
