#if canImport(UIKit) && canImport(UserNotifications) && canImport(WebKit) && os(iOS)
    import Foundation
    import UIKit
    import HeraldModel

    @available(iOSApplicationExtension, unavailable)
    extension HeraldEnvironment {
        /// The real ports on iOS: URLSession; the install's record and credential in the Keychain (moved there from the
        /// file earlier versions wrote), the rest in Application Support, readable after the first unlock; the system
        /// clock; the SDK's card (looking as `appearance` says) and `UNUserNotificationCenter`; CoreLocation
        /// (`regionMonitor`, or one made here); the notification permission and the badge; `UIApplication.open` for
        /// links. App only (not in an app extension).
        @MainActor
        public static func live(
            regionMonitor: (any RegionMonitor)? = nil, appearance: CardAppearance = CardAppearance(),
            diagnostics: @escaping @Sendable (HeraldDiagnostic) -> Void = { _ in }
        ) throws -> HeraldEnvironment {
            let monitor = regionMonitor ?? CoreLocationRegionMonitor()
            let availability = ProtectedDataAvailability.shared
            return HeraldEnvironment(
                transport: URLSessionTransport(), storage: try FileStorage.applicationSupport(),
                secureStorage: KeychainStorage { availability.isAvailable },
                presenter: UserNotificationsPresenter(appearance: appearance),
                regionMonitor: monitor, location: monitor as? any LocationService,
                notificationAuthorizer: UserNotificationsAuthorizer(), badge: UserNotificationsBadge(),
                urlOpener: UIApplicationURLOpener(), diagnostics: diagnostics)
        }
    }

    @available(iOSApplicationExtension, unavailable)
    extension FileStorage {
        /// Storage in `Application Support/Herald`, available once protected data is (after the first unlock).
        @MainActor
        public static func applicationSupport() throws -> FileStorage {
            let base = try FileManager.default.url(
                for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
            let availability = ProtectedDataAvailability.shared
            return try FileStorage(directory: base.appendingPathComponent("Herald")) { availability.isAvailable }
        }
    }

    /// Tracks `UIApplication.isProtectedDataAvailable` from its notifications, readable from any thread; starts the SDK
    /// when protected data becomes available (an app pre-warmed before the first unlock).
    @available(iOSApplicationExtension, unavailable)
    final class ProtectedDataAvailability: @unchecked Sendable {
        private let lock = NSLock()
        private var available: Bool

        /// The one tracker (made on first use, on the main thread).
        @MainActor static let shared = ProtectedDataAvailability()

        @MainActor
        private init() {
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

        var isAvailable: Bool {
            lock.lock()
            defer { lock.unlock() }
            return available
        }

        private func set(_ value: Bool) {
            lock.lock()
            available = value
            lock.unlock()
        }
    }

    /// Opens links with `UIApplication.open`.
    @available(iOSApplicationExtension, unavailable)
    public struct UIApplicationURLOpener: URLOpener {
        /// An opener.
        public init() {}

        /// Opens `url` (universal links in their app, the rest in Safari); answers whether something opened it.
        public func open(_ url: String) async -> Bool {
            guard let target = URL(string: url) else { return false }
            return await Self.open(target)
        }

        @MainActor
        private static func open(_ url: URL) async -> Bool { await UIApplication.shared.open(url) }
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
