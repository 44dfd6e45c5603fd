import Foundation
import HeraldModel
import HeraldObservability
import Testing

@testable import HeraldSDK

/// The SDK's version is the package's, and the APNs environment comes from the app's provisioning profile.
@Suite struct ConfigurationTests {
    @Test func theSDKReportsTheVersionHeraldReports() {
        #expect(HeraldConfiguration.currentSDKVersion == BuildInfo.version)
    }

    /// A profile as Xcode embeds it: a signed envelope (binary) around an XML property list.
    static func profile(apsEnvironment: String?) -> [UInt8] {
        var plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>Entitlements</key><dict>
            <key>application-identifier</key><string>TEAM.com.example.coffee</string>
            """
        if let apsEnvironment { plist += "<key>aps-environment</key>\n\t<string>\(apsEnvironment)</string>" }
        plist += "</dict></dict></plist>"
        return [0x30, 0x80, 0x06, 0x09, 0x2A, 0x86, 0xFF, 0x00] + Array(plist.utf8) + [0xA0, 0x82, 0x00, 0xFE]
    }

    @Test func developmentProfilesMeanSandboxTokens() {
        #expect(ProvisioningProfile.apnsEnvironment(profile: Self.profile(apsEnvironment: "development")) == "sandbox")
        #expect(
            ProvisioningProfile.apnsEnvironment(profile: Self.profile(apsEnvironment: "production")) == "production")
        #expect(ProvisioningProfile.apnsEnvironment(profile: Self.profile(apsEnvironment: nil)) == "production")
        #expect(ProvisioningProfile.apnsEnvironment(profile: nil) == "production", "App Store builds carry no profile")
        #expect(ProvisioningProfile.apnsEnvironment(profile: Array("<key>aps-environment</key>".utf8)) == "production")
    }
}
