import Foundation

/// The APNs environment an app's tokens belong to, read from its embedded provisioning profile
/// (`embedded.mobileprovision`: a signed envelope around an XML property list whose `Entitlements` hold
/// `aps-environment`). Builds signed for development (Xcode's debug builds) carry `development`: their tokens are
/// sandbox tokens. TestFlight and ad hoc builds carry `production`; App Store builds carry no profile at all.
///
/// ```swift
/// ProvisioningProfile.apnsEnvironment(profile: bytes)   // "sandbox" or "production"
/// ```
enum ProvisioningProfile {
    /// `sandbox` when the profile's `aps-environment` is `development`, else `production` (no profile included).
    static func apnsEnvironment(profile: [UInt8]?) -> String {
        guard let profile, let value = entitlement("aps-environment", in: profile) else { return "production" }
        return value == "development" ? "sandbox" : "production"
    }

    /// The string value of `key` in the profile's property list; nil when it isn't there.
    static func entitlement(_ key: String, in profile: [UInt8]) -> String? {
        // The envelope is binary; the property list inside is plain ASCII XML, read as it stands.
        let text = String(decoding: profile, as: UTF8.self)
        guard let keyRange = text.range(of: "<key>\(key)</key>") else { return nil }
        let rest = text[keyRange.upperBound...]
        guard let open = rest.range(of: "<string>"), let close = rest.range(of: "</string>"),
            open.upperBound <= close.lowerBound,
            rest[rest.startIndex..<open.lowerBound].allSatisfy({ $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" })
        else { return nil }
        return String(rest[open.upperBound..<close.lowerBound])
    }
}
