#if canImport(UIKit) && os(iOS)
    import Foundation
    import UIKit

    /// Watches what UIKit posts about the app and each of its scenes — become active, enter the foreground, enter the
    /// background — and tells the client, so UIKit, scene-based and SwiftUI apps need no forwarding.
    @available(iOSApplicationExtension, unavailable)
    final class LifecycleObserver: @unchecked Sendable {
        private var observers: [any NSObjectProtocol] = []

        /// Starts watching for `client`; tells it at once when the app is already active (started late).
        @MainActor
        init(client: HeraldClient) {
            let center = NotificationCenter.default
            func watch(_ name: Notification.Name, _ event: @escaping @Sendable (Any?) -> LifecycleTracker.Event) {
                observers.append(
                    center.addObserver(forName: name, object: nil, queue: .main) { [weak client] notification in
                        guard let client else { return }
                        let happened = event(notification.object)
                        // Tasks made on the main actor start in the order UIKit posted.
                        Task { @MainActor in await client.lifecycle(happened) }
                    })
            }
            watch(UIApplication.didBecomeActiveNotification) { _ in .becameActive(.app) }
            watch(UIApplication.willEnterForegroundNotification) { _ in .willEnterForeground(.app) }
            watch(UIApplication.didEnterBackgroundNotification) { _ in .enteredBackground(.app) }
            watch(UIScene.didActivateNotification) { .becameActive(Self.scene($0)) }
            watch(UIScene.willEnterForegroundNotification) { .willEnterForeground(Self.scene($0)) }
            watch(UIScene.didEnterBackgroundNotification) { .enteredBackground(Self.scene($0)) }
            if UIApplication.shared.applicationState == .active {
                Task { await client.lifecycle(.becameActive(.app)) }
            }
        }

        /// A scene, named by the object's identity (read without touching the scene, which is main-actor bound).
        private static func scene(_ object: Any?) -> LifecycleTracker.Source {
            guard let object else { return .app }
            return .scene(String(describing: ObjectIdentifier(object as AnyObject)))
        }
    }
#endif
