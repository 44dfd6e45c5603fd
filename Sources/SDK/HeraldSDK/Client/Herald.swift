import Foundation
import HeraldModel
import HeraldPushContent

/// The SDK's front door, as apps call it: `Herald.start(apiKey:baseURL:)` once at launch, then the static calls below, each
/// forwarded to the one `HeraldClient`. Calls before `start` do nothing (or throw `notStarted`).
///
/// ```swift
/// Herald.start(apiKey: "live_…", baseURL: "https://push.example.com")  // iOS, at launch
/// Task { await Herald.setPushToken(deviceToken) }  // from application(_:didRegisterForRemoteNotificationsWithDeviceToken:)
/// await Herald.requestNotificationPermission()
/// guard let message = HeraldMessage(json: savedJSON) else { return }
/// await Herald.present(message)
/// ```
/// Elsewhere (tests, other platforms) `Herald.start(_:environment:)` takes a configuration and the ports.
public enum Herald {
    private static let current = ClientSlot()

    /// Makes the SDK's client, installs it for the static calls, and starts it.
    @discardableResult
    public static func start(_ configuration: HeraldConfiguration, environment: HeraldEnvironment) async
        -> HeraldClient
    {
        let client = HeraldClient(configuration: configuration, environment: environment)
        current.set(client)
        await client.start()
        return client
    }

    /// The client `start` made, if any.
    public static var client: HeraldClient? { current.get() }

    /// Forgets the client (tests; an app never needs it).
    public static func reset() { current.set(nil) }

    /// Installs `client` for the static calls (the iOS one-line start, which starts it itself).
    static func install(_ client: HeraldClient) { current.set(client) }

    /// See `HeraldClient.setPushToken(_:)`.
    public static func setPushToken(_ token: [UInt8]) async { await client?.setPushToken(token) }

    /// The APNs token as the system hands it to the app delegate.
    public static func setPushToken(_ token: Data) async { await client?.setPushToken([UInt8](token)) }

    /// See `HeraldClient.setPermissions(_:)`.
    public static func setPermissions(_ permissions: Permissions) async { await client?.setPermissions(permissions) }

    /// See `HeraldClient.requestNotificationPermission(provisional:)`.
    @discardableResult
    public static func requestNotificationPermission(provisional: Bool = false) async -> Bool {
        await client?.requestNotificationPermission(provisional: provisional) ?? false
    }

    /// See `HeraldClient.requestLocationPermission()`.
    @discardableResult
    public static func requestLocationPermission() async -> Permissions.Location {
        await client?.requestLocationPermission() ?? .none
    }

    /// See `HeraldClient.identify(externalID:identityToken:)`.
    public static func identify(externalID: String, identityToken: String) async throws(HeraldError) {
        guard let client else { throw HeraldError(code: .notStarted) }
        try await client.identify(externalID: externalID, identityToken: identityToken)
    }

    /// See `HeraldClient.logout()`.
    public static func logout() async throws(HeraldError) {
        guard let client else { throw HeraldError(code: .notStarted) }
        try await client.logout()
    }

    /// See `HeraldClient.setLinkHandler(_:)`.
    public static func setLinkHandler(_ handler: LinkHandler?) { client?.setLinkHandler(handler) }

    /// See `HeraldClient.setBadgeCount(_:)`.
    public static func setBadgeCount(_ count: Int) async { await client?.setBadgeCount(count) }

    /// See `HeraldClient.handlePush(_:tapped:)`.
    public static func handlePush(_ payload: JSON, tapped: Bool) async -> PushHandling {
        guard let client else { return .notHerald }
        return await client.handlePush(payload, tapped: tapped)
    }

    /// See `HeraldClient.handlePush(_:tapped:)`, with the notification's `userInfo`.
    public static func handlePush(userInfo: [AnyHashable: Any], tapped: Bool) async -> PushHandling {
        guard let payload = PushPayload.json(fromUserInfo: userInfo) else { return .notHerald }
        return await handlePush(payload, tapped: tapped)
    }

    /// See `HeraldClient.willPresent(_:)`, with the notification's `userInfo`.
    public static func willPresent(userInfo: [AnyHashable: Any]) async -> ForegroundPresentation? {
        guard let client, let payload = PushPayload.json(fromUserInfo: userInfo) else { return nil }
        return await client.willPresent(payload)
    }

    /// See `HeraldClient.handleResponse(_:action:)`, with the notification's `userInfo`.
    @discardableResult
    public static func handleResponse(userInfo: [AnyHashable: Any], action: NotificationResponseAction) async -> Bool {
        guard let client, let payload = PushPayload.json(fromUserInfo: userInfo) else { return false }
        return await client.handleResponse(payload, action: action)
    }

    /// See `HeraldClient.pull()`.
    @discardableResult
    public static func pull() async throws(HeraldError) -> [HeraldMessage] {
        guard let client else { throw HeraldError(code: .notStarted) }
        return try await client.pull()
    }

    /// See `HeraldClient.present(_:)`.
    public static func present(_ message: HeraldMessage) async { await client?.present(message) }

    /// See `HeraldClient.openCta(_:)`.
    @discardableResult
    public static func openCta(_ message: HeraldMessage) async -> CTAResult {
        guard let client else { return .failed(message.cta?.url ?? "") }
        return await client.openCta(message)
    }

    /// See `HeraldClient.setEventListener(_:)`.
    public static func setEventListener(_ listener: (@Sendable (HeraldEvent) -> Void)?) async {
        await client?.setEventListener(listener)
    }

    /// See `HeraldClient.setNotificationListener(_:)`.
    public static func setNotificationListener(_ listener: (@Sendable (HeraldMessage) -> Void)?) async {
        await client?.setNotificationListener(listener)
    }

    /// See `HeraldClient.setSegments(_:)`.
    public static func setSegments(_ segments: [String]) async throws(HeraldError) {
        guard let client else { throw HeraldError(code: .notStarted) }
        try await client.setSegments(segments)
    }

    /// See `HeraldClient.track(_:properties:)`.
    @discardableResult
    public static func track(_ name: String, properties: [(key: String, value: JSON)] = []) -> HeraldEvent? {
        client?.track(name, properties: properties)
    }

    /// See `HeraldClient.locationDidUpdate(_:)`.
    public static func locationDidUpdate(_ fix: LocationFix) async { await client?.locationDidUpdate(fix) }

    /// See `HeraldClient.appDidBecomeActive()`.
    public static func appDidBecomeActive() async { await client?.appDidBecomeActive() }

    /// See `HeraldClient.appDidEnterBackground()`.
    public static func appDidEnterBackground() async { await client?.appDidEnterBackground() }

    /// See `HeraldClient.protectedDataDidBecomeAvailable()`.
    public static func protectedDataDidBecomeAvailable() async { await client?.protectedDataDidBecomeAvailable() }

    /// See `HeraldClient.deleteMyData()`.
    public static func deleteMyData() async throws(HeraldError) {
        guard let client else { throw HeraldError(code: .notStarted) }
        try await client.deleteMyData()
    }
}

/// The one client, behind a lock.
private final class ClientSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var client: HeraldClient?

    func get() -> HeraldClient? { lock.withLock { client } }
    func set(_ value: HeraldClient?) { lock.withLock { client = value } }
}
