#if canImport(UserNotifications) && os(iOS)
    import Foundation
    @preconcurrency import UserNotifications
    import HeraldModel

    /// A notification service extension that attaches a push's `ab.att` media: make your extension's
    /// `NotificationService` a subclass of it, with nothing inside.
    ///
    /// ```swift
    /// import HeraldSDK
    /// final class NotificationService: HeraldNotificationService {}
    /// ```
    /// On any failure, or when iOS's time runs out, the notification is delivered as it came.
    open class HeraldNotificationService: UNNotificationServiceExtension {
        private let delivery = Delivery()
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
            work = Task {
                guard case .success(let file) = await attacher.attach(payload: payload),
                    let attachment = try? UNNotificationAttachment(identifier: "herald-media", url: file.fileURL)
                else {
                    delivery.deliverOriginal()
                    return
                }
                content.attachments = [attachment]
                delivery.deliver(content)
            }
        }

        open override func serviceExtensionTimeWillExpire() {
            work?.cancel()
            delivery.deliverOriginal()
        }
    }

    /// Calls the content handler exactly once.
    private final class Delivery: @unchecked Sendable {
        private let lock = NSLock()
        private var handler: ((UNNotificationContent) -> Void)?
        private var original: UNNotificationContent?

        func prepare(original: UNNotificationContent, handler: @escaping (UNNotificationContent) -> Void) {
            lock.withLock {
                self.original = original
                self.handler = handler
            }
        }

        func deliverOriginal() {
            let (handler, original) = lock.withLock {
                () -> (((UNNotificationContent) -> Void)?, UNNotificationContent?) in
                defer { self.handler = nil }
                return (self.handler, self.original)
            }
            if let handler, let original { handler(original) }
        }

        func deliver(_ content: UNNotificationContent) {
            let handler = lock.withLock { () -> ((UNNotificationContent) -> Void)? in
                defer { self.handler = nil }
                return self.handler
            }
            handler?(content)
        }
    }
#endif
