import HeraldModel

/// What a support person looks a device up by (the admin console's device lookup). Every condition given must
/// hold; none given lists the business's devices.
package struct DeviceLookup: Sendable, Equatable {
    /// The device's owner.
    package var userID: Int64?
    /// The owner's email (already normalized: lower-cased).
    package var email: String?
    /// The install id (or Punchh device id) the app registered with.
    package var installID: String?
    /// The first characters of its push token.
    package var tokenPrefix: String?

    package init(userID: Int64? = nil, email: String? = nil, installID: String? = nil, tokenPrefix: String? = nil) {
        self.userID = userID
        self.email = email
        self.installID = installID
        self.tokenPrefix = tokenPrefix
    }
}
