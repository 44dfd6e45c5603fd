import HeraldDelivery
import HeraldHTTPClient
import HeraldModel

/// Apple's two hosts as this node reaches them: each environment's base URL, Apple's own or the one configured in its
/// place (a stand-in), and which one a push goes to.
///
/// A device token belongs to one environment: a development build's (signed with a development provisioning profile)
/// to the sandbox host, a TestFlight or App Store build's to the production host; the other host answers it
/// `BadDeviceToken`. One key serves both, so a business's credential reaches both hosts: each push goes to its
/// device's environment (an install's `apns_environment`), else to the credential's.
///
/// ```swift
/// let hosts = APNsHosts(configuration)
/// let environment = hosts.environment(device: push.apnsEnvironment, credential: credential.environment)
/// let url = hosts.url(environment) + "/3/device/" + token
/// // BadDeviceToken from there: the other host, once, unless one URL stands for both
/// let other = hosts.fallback(from: environment)
/// ```
struct APNsHosts: Sendable {
    /// The production host's base URL, without a trailing `/`.
    let production: String
    /// The sandbox host's.
    let sandbox: String

    /// The hosts `configuration` names: `sandboxURLOverride` for the sandbox, else `baseURLOverride` for both,
    /// else Apple's.
    init(_ configuration: APNsProvider.Configuration) {
        func trimmed(_ url: String) -> String { url.hasSuffix("/") ? String(url.dropLast()) : url }
        let base = configuration.baseURLOverride
        production = trimmed(base ?? APNsCredential.Environment.production.baseURL)
        sandbox = trimmed(configuration.sandboxURLOverride ?? base ?? APNsCredential.Environment.sandbox.baseURL)
    }

    /// The base URL of `environment`'s host.
    func url(_ environment: APNsCredential.Environment) -> String {
        environment == .sandbox ? sandbox : production
    }

    /// Where a push to a device of environment `named` goes: the device's environment when it names one, else the
    /// credential's.
    func environment(device named: String?, credential: APNsCredential.Environment) -> APNsCredential.Environment {
        switch named {
        case APNsCredential.Environment.sandbox.rawValue: .sandbox
        case APNsCredential.Environment.production.rawValue: .production
        default: credential
        }
    }

    /// The environment to try once after `environment`'s host refused a token as `BadDeviceToken`: the other one,
    /// unless one URL stands for both (it would answer the same).
    func fallback(from environment: APNsCredential.Environment) -> APNsCredential.Environment? {
        guard production != sandbox else { return nil }
        return environment == .sandbox ? .production : .sandbox
    }

    /// Whether `response` refuses the token as `BadDeviceToken`: what a host answers a token of the other environment
    /// (and a token that is no token at all).
    static func refusesToken(_ response: HTTPClientResponse) -> Bool {
        guard response.status == 400, let body = try? JSON.parse(response.body) else { return false }
        return body["reason"]?.stringValue == APNsReason.badDeviceToken.rawValue
    }
}

extension APNsProvider {
    /// The host one request of a push goes to.
    struct Host: Sendable {
        /// The host's environment.
        let environment: APNsCredential.Environment
        /// Whether it is the other host, tried after the first refused the token as `BadDeviceToken`.
        var isFallback = false

        /// `result`, naming this host's environment when it is the other host that took the push.
        func named(_ result: PushResult) -> PushResult {
            guard isFallback, case .delivered(let messageID, _) = result else { return result }
            return .delivered(messageID: messageID, apnsEnvironment: environment.rawValue)
        }
    }
}
