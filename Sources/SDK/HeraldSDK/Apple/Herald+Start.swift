#if canImport(UIKit) && canImport(UserNotifications) && canImport(WebKit) && os(iOS)
    import Foundation
    import UIKit
    @preconcurrency import UserNotifications
    import HeraldModel

    @available(iOSApplicationExtension, unavailable)
    extension Herald {
        /// The one line an app adds at launch — in `application(_:didFinishLaunchingWithOptions:)`, or in a SwiftUI
        /// `App`'s `init` — before launch finishes:
        ///
        /// ```swift
        /// Herald.start(apiKey: "live_…", baseURL: "https://push.example.com")
        /// ```
        ///
        /// It reads the device (`DeviceInfo.current()`) and the APNs environment from the app's provisioning profile
        /// (`apnsEnvironment` overrides it: `sandbox` or `production`), makes the live environment (Keychain, files,
        /// UserNotifications, CoreLocation, UIKit; the card as `appearance` says), becomes `UNUserNotificationCenter`'s delegate — forwarding what
        /// isn't Herald's to `notificationDelegate`, or to the delegate set before — watches the app's and its scenes'
        /// lifecycle, registers for remote notifications and starts the SDK. Nothing is asked of the user: call
        /// `requestNotificationPermission()` (and `requestLocationPermission()`) when your app is ready to. The device
        /// token still comes from the app delegate (`setPushToken(_:)`; SwiftUI apps add `HeraldAppDelegate`).
        /// Calling it again does nothing; answers the client, nil when storage can't be set up (a diagnostic says so).
        @MainActor
        @discardableResult
        public static func start(
            apiKey: String, baseURL: String, options: HeraldConfiguration.Options = HeraldConfiguration.Options(),
            appearance: CardAppearance = CardAppearance(), apnsEnvironment: String? = nil,
            notificationDelegate: (any UNUserNotificationCenterDelegate)? = nil,
            diagnostics: @escaping @Sendable (HeraldDiagnostic) -> Void = { _ in }
        ) -> HeraldClient? {
            if let client { return client }
            let configuration = HeraldConfiguration(
                apiKey: apiKey, baseURL: baseURL, device: DeviceInfo.current(),
                apnsEnvironment: apnsEnvironment ?? AppleApp.apnsEnvironment, options: options)
            let environment: HeraldEnvironment
            do {
                environment = try HeraldEnvironment.live(appearance: appearance, diagnostics: diagnostics)
            } catch {
                diagnostics(HeraldDiagnostic(code: .storage, message: "Herald not started: \(error)"))
                return nil
            }
            let client = HeraldClient(configuration: configuration, environment: environment)
            install(client)
            AppleApp.relay.install(on: UNUserNotificationCenter.current(), forwardingTo: notificationDelegate)
            AppleApp.lifecycle = LifecycleObserver(client: client)
            Task { @MainActor in
                // After launch: UIApplication is ready, and the token comes back through the app delegate.
                UIApplication.shared.registerForRemoteNotifications()
            }
            Task { await client.start() }
            return client
        }
    }

    /// What the one-line start keeps for the app's lifetime.
    @available(iOSApplicationExtension, unavailable)
    @MainActor
    enum AppleApp {
        /// The `UNUserNotificationCenter` delegate (the center holds it weakly).
        static let relay = NotificationCenterRelay()
        /// The lifecycle observer.
        static var lifecycle: LifecycleObserver?

        /// `sandbox` in the simulator and for builds signed for development, else `production`.
        static var apnsEnvironment: String {
            #if targetEnvironment(simulator)
                return "sandbox"
            #else
                let profile = Bundle.main.url(forResource: "embedded", withExtension: "mobileprovision")
                    .flatMap { try? Data(contentsOf: $0) }
                return ProvisioningProfile.apnsEnvironment(profile: profile.map { [UInt8]($0) })
            #endif
        }
    }
#endif
