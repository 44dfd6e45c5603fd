#if canImport(UIKit) && canImport(UserNotifications) && canImport(WebKit)
    import Foundation
    import UIKit
    import HeraldModel

    extension HeraldEnvironment {
        /// The real ports on iOS: URLSession, files in Application Support readable after the first unlock, the
        /// system clock, the SDK's card (looking as `appearance` says) and `UNUserNotificationCenter`,
        /// `UIApplication.open` for links. App only (not in an app extension).
        @MainActor
        @available(iOSApplicationExtension, unavailable)
        public static func live(
            regionMonitor: (any RegionMonitor)? = nil, appearance: CardAppearance = CardAppearance(),
            diagnostics: @escaping @Sendable (HeraldDiagnostic) -> Void = { _ in }
        ) throws -> HeraldEnvironment {
            HeraldEnvironment(
                transport: URLSessionTransport(), storage: try FileStorage.applicationSupport(),
                presenter: UserNotificationsPresenter(appearance: appearance), regionMonitor: regionMonitor,
                urlOpener: UIApplicationURLOpener(), diagnostics: diagnostics)
        }
    }

    extension FileStorage {
        /// Storage in `Application Support/Herald`, available once protected data is (after the first unlock).
        @MainActor
        @available(iOSApplicationExtension, unavailable)
        public static func applicationSupport() throws -> FileStorage {
            let base = try FileManager.default.url(
                for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
            let availability = ProtectedDataAvailability()
            return try FileStorage(directory: base.appendingPathComponent("Herald")) { availability.isAvailable }
        }
    }

    /// Tracks `UIApplication.isProtectedDataAvailable` from its notifications, readable from any thread.
    @available(iOSApplicationExtension, unavailable)
    final class ProtectedDataAvailability: @unchecked Sendable {
        private let lock = NSLock()
        private var available: Bool

        @MainActor
        init() {
            available = UIApplication.shared.isProtectedDataAvailable
            let center = NotificationCenter.default
            center.addObserver(
                forName: UIApplication.protectedDataDidBecomeAvailableNotification, object: nil, queue: nil
            ) { [weak self] _ in
                self?.set(true)
                Task { await Herald.protectedDataDidBecomeAvailable() }
            }
            center.addObserver(
                forName: UIApplication.protectedDataWillBecomeUnavailableNotification, object: nil, queue: nil
            ) { [weak self] _ in self?.set(false) }
        }

        var isAvailable: Bool { lock.withLock { available } }

        private func set(_ value: Bool) { lock.withLock { available = value } }
    }

    /// Opens links with `UIApplication.open`.
    @available(iOSApplicationExtension, unavailable)
    public struct UIApplicationURLOpener: URLOpener {
        /// An opener.
        public init() {}

        /// Opens `url` with `UIApplication.open`; answers whether something did.
        public func open(_ url: String) async -> Bool {
            guard let target = URL(string: url) else { return false }
            return await UIApplication.shared.open(target)
        }
    }

    extension DeviceInfo {
        /// This app and device: the bundle's short version, the system's version, the hardware model, the user's
        /// locale and time zone.
        @MainActor
        public static func current() -> DeviceInfo {
            var system = utsname()
            uname(&system)
            let model = withUnsafeBytes(of: &system.machine) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            return DeviceInfo(
                platform: "ios",
                appVersion: Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String ?? "0",
                osVersion: UIDevice.current.systemVersion, deviceModel: model, locale: Locale.current.identifier,
                timezone: TimeZone.current.identifier)
        }
    }
#endif
