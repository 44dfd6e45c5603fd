import HeraldModel

/// What a support person looks a device up by (the admin console's device lookup). Every condition given must
/// hold; none given lists the business's devices.
public struct DeviceLookup: Sendable, Equatable {
    /// The device's owner.
    public var userID: Int64?
    /// The owner's email (already normalized: lower-cased).
    public var email: String?
    /// The install id (or Punchh device id) the app registered with.
    public var installID: String?
    /// The first characters of its push token.
    public var tokenPrefix: String?

    public init(userID: Int64? = nil, email: String? = nil, installID: String? = nil, tokenPrefix: String? = nil) {
        self.userID = userID
        self.email = email
        self.installID = installID
        self.tokenPrefix = tokenPrefix
    }
}
