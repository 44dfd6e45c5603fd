import HeraldModel

/// What a connection budget is kept for: one APNs credential (a business's key: Apple binds a connection to one
/// key, so each has a client and connections of its own), or FCM, whose one client carries every Firebase
/// project's pushes on the same connections to Google.
package struct ConnectionCredential: Hashable, Sendable, CustomStringConvertible {
    /// The provider.
    package let platform: PushPlatform
    /// The business whose APNs key it is; nil for FCM.
    package let businessID: Int64?

    /// A business's APNs key.
    package static func apns(_ businessID: Int64) -> Self { Self(platform: .apns, businessID: businessID) }
    /// FCM's connections, shared by every project.
    package static let fcm = Self(platform: .fcm, businessID: nil)

    /// Its name in the database and in `/metrics`: `apns/12`, `fcm`.
    package var description: String { businessID.map { "\(platform.rawValue)/\($0)" } ?? platform.rawValue }
}

/// What keeps connections for credentials (a push provider): the budget tells it how many each may keep, and asks
/// how many each still has open (a connection given up drains: its last answers arrive before it closes).
package protocol ConnectionHolder: AnyObject, Sendable {
    /// Lets `credential` keep at most `count` connections from now on (0: none).
    func limitConnections(_ credential: ConnectionCredential, to count: Int)
    /// The connections `credential` has open now, draining ones included.
    func openConnections(_ credential: ConnectionCredential) -> Int
}
