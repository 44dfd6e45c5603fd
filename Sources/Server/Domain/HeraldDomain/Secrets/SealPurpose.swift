import HeraldModel

/// What a secret is sealed for, or an authentication code computed for (`SecretSealer`): the text bound to it, so
/// a value sealed for one purpose opens for no other. Every purpose is one of the constants below — there is no
/// other way to make one — and each text is what stored values were sealed with: changing one makes them unreadable.
package struct SealPurpose: Sendable, Hashable, CustomStringConvertible {
    /// The text bound.
    package let rawValue: String

    private init(_ rawValue: String) { self.rawValue = rawValue }

    // MARK: Sealed in the store

    /// A business's signing secret (`businesses.sealed_secret`), which mobile calls are signed with.
    package static let businessSecret = SealPurpose("business-secret")
    /// A business's APNs .p8 key (`push_credentials`, platform `apns`).
    package static let apnsKey = SealPurpose("apns-key")
    /// A business's Firebase service account (`push_credentials`, platform `fcm`).
    package static let fcmAccount = SealPurpose("fcm-account")
    /// An install's signing secret (`devices.sealed_secret`), which device-API calls are signed with.
    package static let installSecret = SealPurpose("install-secret")

    /// A business's added identity key `kid`: its business and name are bound, so a key moved to another row does
    /// not open.
    package static func identityKey(businessID: Int64, kid: String) -> SealPurpose {
        SealPurpose("\(originalIdentityKey.rawValue) \(businessID) \(kid)")
    }

    /// A provider's access token for `platform` (an APNs JWT, an FCM OAuth token), bound to the key that signs it
    /// (`signer`, a fingerprint; nil for a token of the credential itself).
    package static func providerToken(_ platform: PushPlatform, signer: String?) -> SealPurpose {
        let purpose = "provider-token-" + platform.rawValue
        return SealPurpose(signer.map { purpose + " " + $0 } ?? purpose)
    }

    // MARK: Authentication codes (`SecretSealer.authenticationCode`)

    /// A business's original identity key, derived from the server's key and the business's id.
    package static let originalIdentityKey = SealPurpose("identity-key")
    /// An emailed sign-in code's hash.
    package static let emailProof = SealPurpose("email-proof")
    /// A survey page link's token.
    package static let surveyPage = SealPurpose("survey-page")

    package var description: String { rawValue }
}
