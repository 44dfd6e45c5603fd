#if canImport(UserNotifications) && os(iOS)
    import Foundation
    @preconcurrency import UserNotifications
    import HeraldModel
    import HeraldPushContent

    /// A notification service extension for Herald's pushes: it attaches a push's `ab.att` media and turns its
    /// message's call to action into an action button. Make your extension's `NotificationService` a subclass of it,
    /// with nothing inside (link the `HeraldServiceExtension` product to the extension target, not HeraldSDK).
    ///
    /// ```swift
    /// import HeraldServiceExtension
    /// final class NotificationService: RichPushExtension {}
    /// ```
    /// On any failure, or when iOS's time runs out, the notification is delivered as it came. Only extension-safe API
    /// is used here (scripts/check-ios-sdk keeps it so).
    open class RichPushExtension: UNNotificationServiceExtension {
        private let delivery = ContentDelivery()
        private var work: Task<Void, Never>?

        /// The attacher's limits; override to change them.
        open var options: RichPushOptions { RichPushOptions() }

        open override func didReceive(
            _ request: UNNotificationRequest,
            withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
        ) {
            delivery.prepare(original: request.content, handler: contentHandler)
            guard let payload = PushPayload.json(fromUserInfo: request.content.userInfo),
                let content = request.content.mutableCopy() as? UNMutableNotificationContent
            else {
                delivery.deliverOriginal()
                return
            }
            let options = self.options
            let delivery = self.delivery
            let attacher = RichPushAttacher(
                fetcher: URLSessionMediaFetcher(options: options),
                directory: FileManager.default.temporaryDirectory.appendingPathComponent("herald-media"),
                options: options)
            let plan = NotificationActionPlan(payload: payload)
            work = Task {
                if let plan, await NotificationCategories.register(plan) {
                    content.categoryIdentifier = plan.categoryIdentifier
                }
                if case .success(let file) = await attacher.attach(payload: payload),
                    let attachment = try? UNNotificationAttachment(identifier: "herald-media", url: file.fileURL)
                {
                    content.attachments = [attachment]
                }
                delivery.deliver(content)
            }
        }

        open override func serviceExtensionTimeWillExpire() {
            work?.cancel()
            delivery.deliverOriginal()
        }
    }

    /// Registers the categories of call-to-action buttons with `UNUserNotificationCenter` (extension-safe).
    public enum NotificationCategories {
        /// Adds `plan`'s category (one foreground action, dismissals reported) to those registered, keeping the app's
        /// own; answers whether it is registered. Reading the categories again waits until iOS has taken the new set,
        /// so a notification shown next finds its buttons.
        public static func register(_ plan: NotificationActionPlan) async -> Bool {
            let center = UNUserNotificationCenter.current()
            let registered = await center.notificationCategories()
            if registered.contains(where: { $0.identifier == plan.categoryIdentifier }) { return true }
            let keep = plan.categoriesToKeep(registered: Set(registered.map(\.identifier)))
            let action = UNNotificationAction(
                identifier: NotificationActionPlan.ctaActionIdentifier, title: plan.actionTitle, options: [.foreground])
            let category = UNNotificationCategory(
                identifier: plan.categoryIdentifier, actions: [action], intentIdentifiers: [],
                options: [.customDismissAction])
            center.setNotificationCategories(Set(registered.filter { keep.contains($0.identifier) }).union([category]))
            return await center.notificationCategories().contains { $0.identifier == plan.categoryIdentifier }
        }
    }

    /// Calls the content handler exactly once.
    private final class ContentDelivery: @unchecked Sendable {
        private let lock = NSLock()
        private var handler: ((UNNotificationContent) -> Void)?
        private var original: UNNotificationContent?

        func prepare(original: UNNotificationContent, handler: @escaping (UNNotificationContent) -> Void) {
            lock.lock()
            defer { lock.unlock() }
            self.original = original
            self.handler = handler
        }

        func deliverOriginal() {
            lock.lock()
            let handler = self.handler
            let original = self.original
            self.handler = nil
            lock.unlock()
            if let handler, let original { handler(original) }
        }

        func deliver(_ content: UNNotificationContent) {
            lock.lock()
            let handler = self.handler
            self.handler = nil
            lock.unlock()
            handler?(content)
        }
    }
#endif
