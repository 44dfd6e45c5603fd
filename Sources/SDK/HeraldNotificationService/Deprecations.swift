// The service extension's module under its earlier name: an extension written as `import HeraldNotificationService`
// and `final class NotificationService: HeraldNotificationService {}` keeps building, with a deprecation warning
// that names the new ones.
@_exported import HeraldServiceExtension

#if canImport(UserNotifications) && os(iOS)
    /// The service extension's class under its earlier name.
    @available(*, deprecated, renamed: "RichPushExtension", message: "import HeraldServiceExtension instead")
    public typealias HeraldNotificationService = RichPushExtension
#endif
