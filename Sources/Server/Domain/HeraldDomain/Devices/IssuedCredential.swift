/// An install's new credential as the domain keeps it: the key id the install signs as and its secret, sealed by
/// the API before it reaches the domain (which never sees it in clear).
package struct IssuedCredential: Sendable, Equatable {
    /// `X-Herald-Key-Id`: public, unique.
    package var keyID: String
    /// The secret, sealed.
    package var sealedSecret: [UInt8]

    /// A credential.
    package init(keyID: String, sealedSecret: [UInt8]) {
        self.keyID = keyID
        self.sealedSecret = sealedSecret
    }
}
