import Foundation
import HeraldCrypto
import HeraldModel

/// The APNs and FCM stand-ins (`Tests/StandIns/standin.py`), started on ephemeral ports for one test:
/// real HTTP/2 over TLS with a throwaway CA, checking requests as Apple and Google do.
///
/// ```swift
/// let standIn = try StandIn()
/// let key = P256PrivateKey.generate()
/// try standIn.registerAPNsKey(keyID: "ABCDEFGHIJ", teamID: "TEAM123456", topic: "com.example.app", key: key)
/// // point Herald at standIn.apnsURL, trusting standIn.caFile …
/// let stats = try standIn.stats()
/// ```
public final class StandIn: @unchecked Sendable {
    /// Base URL of the APNs stand-in's production host.
    public let apnsURL: String
    /// Base URL of its sandbox host (the tokens registered as production's are refused there, and the reverse).
    public let apnsSandboxURL: String
    /// Base URL of the FCM stand-in.
    public let fcmURL: String
    /// The OAuth2 token endpoint (a service account's `token_uri`).
    public let tokenURI: String
    /// The CA that signed the stand-ins' certificates.
    public let caFile: String
    private let control: TestHTTPClient
    private let process: ChildProcess
    private let directory: TemporaryDirectory

    /// Why the stand-in could not be used.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// The repository's root: the nearest folder above this file holding Package.swift.
    public static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/"
            && !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path)
        {
            url.deleteLastPathComponent()
        }
        return url.path
    }()

    /// Starts the stand-in and waits for its ports.
    public init() throws {
        directory = try TemporaryDirectory(prefix: "herald-standin")
        process = try ChildProcess(
            "/usr/bin/env",
            ["python3", StandIn.repositoryRoot + "/Tests/StandIns/standin.py", "--workdir", directory.path],
            input: .pipe, output: .pipe)
        // The one line it prints when ready.
        var line: [UInt8] = []
        let handle = process.output!
        while true {
            let byte = handle.readData(ofLength: 1)
            guard let first = byte.first else {
                throw Failure(
                    description:
                        "the stand-in exited before it was ready (is python3 with h2 and cryptography installed? pip install -r Tests/StandIns/requirements.txt)"
                )
            }
            if first == UInt8(ascii: "\n") { break }
            line.append(first)
        }
        let announced = try JSON.parse(line)
        guard let apns = announced["apns_url"]?.stringValue,
            let apnsSandbox = announced["apns_sandbox_url"]?.stringValue, let fcm = announced["fcm_url"]?.stringValue,
            let token = announced["token_uri"]?.stringValue, let ca = announced["ca_file"]?.stringValue,
            let controlURL = announced["control_url"]?.stringValue,
            let port = controlURL.split(separator: ":").last.flatMap({ Int($0) })
        else { throw Failure(description: "unexpected stand-in line: \(String(decoding: line, as: UTF8.self))") }
        apnsURL = apns
        apnsSandboxURL = apnsSandbox
        fcmURL = fcm
        tokenURI = token
        caFile = ca
        control = TestHTTPClient(port: port)
    }

    deinit { stop() }

    /// Stops the stand-in.
    public func stop() {
        guard process.isRunning else { return }
        try? process.input?.close()
        process.terminate()
        process.wait()
    }

    /// A control API call; fails unless the answer is 2xx.
    @discardableResult
    public func call(_ method: String, _ path: String, _ body: JSON? = nil) throws -> JSON {
        let response = try control.request(
            method, path, headers: [("Content-Type", "application/json")], body: body?.encoded ?? [])
        guard (200..<300).contains(response.status) else {
            throw Failure(description: "\(method) \(path): \(response)")
        }
        return (try? JSON.parse(response.body)) ?? .null
    }

    /// Registers an APNs key the stand-in verifies provider tokens with.
    public func registerAPNsKey(keyID: String, teamID: String, topic: String, key: P256PrivateKey) throws {
        try call(
            "POST", "/apns/keys",
            [
                "key_id": .string(keyID), "team_id": .string(teamID), "topic": .string(topic),
                "public_key_pem": .string(key.publicKey.pemRepresentation),
            ])
    }

    /// Registers a service account the OAuth stand-in verifies assertions with.
    public func registerFCMAccount(
        clientEmail: String, projectID: String, key: RSAPrivateKey, privateKeyID: String? = nil
    ) throws {
        var body: [(key: String, value: JSON)] = [
            ("client_email", .string(clientEmail)), ("project_id", .string(projectID)),
            ("public_key_pem", .string(key.publicKey.pemRepresentation)),
        ]
        if let privateKeyID { body.append(("private_key_id", .string(privateKeyID))) }
        try call("POST", "/fcm/accounts", .object(body))
    }

    /// Registers device tokens of one APNs environment (`sandbox` or `production`): the other host refuses them with
    /// `BadDeviceToken`, as Apple's do.
    public func registerAPNsTokens(_ tokens: [String], environment: String) throws {
        try call(
            "POST", "/apns/tokens",
            ["environment": .string(environment), "tokens": .array(tokens.map { .string($0) })])
    }

    /// Programs an APNs failure (see Tests/StandIns/README.md for rule shapes).
    public func apnsRule(_ rule: JSON) throws { try call("POST", "/apns/rules", rule) }
    /// Programs an FCM failure.
    public func fcmRule(_ rule: JSON) throws { try call("POST", "/fcm/rules", rule) }
    /// Counters of both stand-ins.
    public func stats() throws -> JSON { try call("GET", "/stats") }
    /// Every APNs request recorded.
    public func apnsRequests() throws -> [JSON] { try call("GET", "/apns/requests").arrayValue ?? [] }
    /// Every FCM send recorded.
    public func fcmRequests() throws -> [JSON] { try call("GET", "/fcm/requests").arrayValue ?? [] }
    /// Every OAuth token request recorded.
    public func tokenRequests() throws -> [JSON] { try call("GET", "/fcm/token_requests").arrayValue ?? [] }
    /// Changes APNs stand-in settings.
    public func configureAPNs(_ settings: JSON) throws { try call("POST", "/apns/config", settings) }
}
