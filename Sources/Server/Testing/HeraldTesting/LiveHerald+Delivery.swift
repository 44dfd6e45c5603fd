import Foundation
import HeraldCrypto
import HeraldModel
import HeraldAPI
import HeraldStore

extension HeraldConfiguration {
    /// Points delivery at `standIn` (its APNs hosts and FCM URLs, trusting its CA), with retries fast enough for tests.
    public mutating func deliver(to standIn: StandIn) {
        apnsURL = standIn.apnsURL
        apnsSandboxURL = standIn.apnsSandboxURL
        fcmURL = standIn.fcmURL
        caFile = standIn.caFile
        delivery.retryBase = .milliseconds(50)
        delivery.retryCap = .seconds(2)
        delivery.requestTimeout = .seconds(10)
    }
}

extension LiveHerald {
    /// APNs test credentials: the key the stand-in knows and the ids that go with it.
    public struct APNsKeys: Sendable {
        /// The .p8 key.
        public let key: P256PrivateKey
        /// Its id.
        public let keyID: String
        /// The team.
        public let teamID: String
        /// The app's bundle id.
        public let topic: String
    }

    /// Makes an APNs key, registers it with `standIn` and sets it on `business` through the admin API, for
    /// `environment` (the host of the devices that do not say theirs).
    @discardableResult
    public func configureAPNs(
        _ business: BusinessKeys, standIn: StandIn, keyID: String = "KEY1234567", teamID: String = "TEAM123456",
        topic: String = "com.example.loyalty", environment: String = "sandbox"
    ) throws -> APNsKeys {
        let key = P256PrivateKey.generate()
        try standIn.registerAPNsKey(keyID: keyID, teamID: teamID, topic: topic, key: key)
        let response = try admin(
            "PUT", "/api/admin/businesses/\(business.id)/apns",
            json: JSON.object([
                ("key_p8", .string(key.pemRepresentation)), ("key_id", .string(keyID)), ("team_id", .string(teamID)),
                ("topic", .string(topic)), ("environment", .string(environment)),
            ]).encodedString)
        guard response.status == 200 else {
            throw TestHTTPClient.Failure(description: "cannot set APNs credentials: \(response)")
        }
        return APNsKeys(key: key, keyID: keyID, teamID: teamID, topic: topic)
    }

    /// Makes a service account, registers it with `standIn` and sets it on `business` through the admin API.
    @discardableResult
    public func configureFCM(
        _ business: BusinessKeys, standIn: StandIn, projectID: String = "loyalty-app",
        clientEmail: String = "herald@loyalty-app.iam.gserviceaccount.com"
    ) throws -> RSAPrivateKey {
        let key = RSAPrivateKey.generate()
        try standIn.registerFCMAccount(clientEmail: clientEmail, projectID: projectID, key: key, privateKeyID: "key-1")
        let account: JSON = [
            "type": "service_account", "project_id": .string(projectID), "private_key_id": "key-1",
            "private_key": .string(key.pemRepresentation), "client_email": .string(clientEmail),
            "token_uri": .string(standIn.tokenURI),
        ]
        let response = try admin(
            "PUT", "/api/admin/businesses/\(business.id)/fcm",
            json: JSON.object([("service_account", account)]).encodedString)
        guard response.status == 200 else {
            throw TestHTTPClient.Failure(description: "cannot set FCM credentials: \(response)")
        }
        return key
    }

    /// Sends a news item through the admin API; returns the notification ids.
    public func sendNews(
        _ business: BusinessKeys, to userIDs: [Int64], title: String = "Our new menu", body: String = "Try it today!",
        media: MediaAttachment? = nil, collapseID: String? = nil
    ) throws -> [Int64] {
        var fields: [(key: String, value: JSON)] = [
            ("user_ids", .array(userIDs.map { .int($0) })), ("title", .string(title)), ("body", .string(body)),
        ]
        if let media { fields.append(("media", ["url": .string(media.url), "type": .string(media.type)])) }
        if let collapseID { fields.append(("collapse_id", .string(collapseID))) }
        let response = try admin(
            "POST", "/api/admin/businesses/\(business.id)/notifications", json: JSON.object(fields).encodedString)
        guard response.status == 202, let ids = (response.json as? [String: Any])?["notification_ids"] as? [Int] else {
            throw TestHTTPClient.Failure(description: "cannot send news: \(response)")
        }
        return ids.map(Int64.init)
    }

    /// Creates a campaign of `message` to `audience` through the admin API, pushed and pulled now, and launches it;
    /// returns its id.
    @discardableResult
    public func launchCampaign(_ business: BusinessKeys, message: JSON, audience: JSON = ["all": true]) throws -> Int64
    {
        let campaigns = "/api/admin/businesses/\(business.id)/campaigns"
        let created = try admin(
            "POST", campaigns,
            json: JSON.object([
                ("name", "Launched by a test"), ("message", message), ("audience", audience),
                ("channels", ["push", "pull"]), ("trigger", ["type": "now"]),
            ]).encodedString)
        guard created.status == 201, let id = (try? JSON.parse(created.body))?["id"]?.int64Value else {
            throw TestHTTPClient.Failure(description: "cannot create a campaign: \(created)")
        }
        let launched = try admin("POST", "\(campaigns)/\(id)/launch")
        guard launched.status == 200 else {
            throw TestHTTPClient.Failure(description: "cannot launch campaign \(id): \(launched)")
        }
        return id
    }

    /// Waits until every delivery of `notificationID` is final (delivered, failed, pruned, skipped), up to `timeout`.
    @discardableResult
    public func waitForDeliveries(
        of notificationID: Int64, timeout: Duration = .seconds(15),
        until done: ([Delivery]) -> Bool = { jobs in !jobs.isEmpty && jobs.allSatisfy { $0.status.isFinal } }
    ) throws -> [Delivery] {
        try CommitWaiter(store).value(timeout: timeout, until: done) {
            try $0.read { try $0.deliveries.all(notificationID: notificationID) }
        }
    }
}

extension LiveHerald {
    /// A POS or webhook call signed with `business`'s POS key.
    public func pos(_ business: BusinessKeys, _ method: String, _ path: String, json: JSON) throws
        -> TestHTTPClient.Response
    {
        try client().request(
            method, path, headers: [("Authorization", "Bearer \(business.posKey)")], json: json.encodedString)
    }

    /// Creates a location through the admin API; returns its id.
    public func createLocation(
        _ business: BusinessKeys, name: String = "Brooklyn Location", storeNumber: String = "0042"
    ) throws -> Int64 {
        let response = try admin(
            "POST", "/api/admin/businesses/\(business.id)/locations",
            json: JSON.object([("name", .string(name)), ("store_number", .string(storeNumber))]).encodedString)
        guard response.status == 201, let id = (response.json as? [String: Any])?["id"] as? Int else {
            throw TestHTTPClient.Failure(description: "cannot create location: \(response)")
        }
        return Int64(id)
    }
}

extension LiveHerald {
    /// Signs a user up on a new device with a push token (an `apn_token`, or a `gcm_token` when `android`) and
    /// waits until the pushes of their sign-up are settled, so failure rules a test programs afterwards apply
    /// to its own sends only.
    public func signUpSettled(
        _ business: BusinessKeys, email: String, firstName: String = "Ann", token: String, android: Bool = false
    ) throws -> MobileTestClient {
        let app = mobileClient(for: business, deviceID: UUID().uuidString)
        let response = try app.signUp(email: email, firstName: firstName, token: token, android: android)
        guard response.status == 200, let userID = app.userID else {
            throw TestHTTPClient.Failure(description: "sign-up failed: \(response)")
        }
        for entry in try store.read({ try $0.inbox.page(userID: userID, limit: 10, offset: 0) }) {
            try waitForDeliveries(of: entry.id)
        }
        return app
    }
}
