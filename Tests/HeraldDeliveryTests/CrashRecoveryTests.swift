import Foundation
import HeraldCrypto
import HeraldDelivery
import HeraldModel
import HeraldSQLite
import HeraldStore
import HeraldTesting
import Testing

/// `herald serve` killed with SIGKILL in the middle of 10,000 sends, then restarted: every job ends delivered.
@Suite("Crash recovery", .serialized)
struct CrashRecoveryTests {
    /// The `herald` binary built next to this test bundle.
    static var heraldBinary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("herald").path
    }

    /// A `herald serve` child process.
    final class Server {
        let process: ChildProcess
        let port: Int

        init(dataDirectory: String, standIn: StandIn, secretKey: String, adminToken: String) throws {
            var environment = ProcessInfo.processInfo.environment
            environment["HERALD_APNS_URL"] = standIn.apnsURL
            environment["HERALD_FCM_URL"] = standIn.fcmURL
            environment["HERALD_CA_FILE"] = standIn.caFile
            environment["HERALD_SECRET_KEY"] = secretKey
            environment["HERALD_ADMIN_TOKEN"] = adminToken
            environment["HERALD_PASSWORD_COST"] = "1024"
            process = try ChildProcess(
                CrashRecoveryTests.heraldBinary,
                ["serve", "--port", "0", "--data-dir", dataDirectory, "--log-level", "warning"],
                environment: environment, output: .pipe)
            var line: [UInt8] = []
            var found: Int?
            while found == nil {
                let data = process.output!.readData(ofLength: 1)
                guard let byte = data.first else {
                    throw TestHTTPClient.Failure(description: "herald exited before listening")
                }
                if byte == UInt8(ascii: "\n") {
                    let text = String(decoding: line, as: UTF8.self)
                    if let range = text.range(of: "listening on http://127.0.0.1:") {
                        found = Int(text[range.upperBound...])
                    }
                    line = []
                } else {
                    line.append(byte)
                }
            }
            port = found!
        }

        func kill() {
            process.signal(SIGKILL)
            process.wait()
        }

        /// SIGTERM; returns the exit status.
        func terminate() -> Int32 {
            process.terminate()
            return process.wait()
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func killedMidSendLosesNothing() throws {
        let total = 10_000
        let standIn = try StandIn()
        // The stand-in's 20-minute refresh rule stays on: the restarted node must send with the stored provider token,
        // not one of its own.
        let data = try TemporaryDirectory(prefix: "herald-crash")
        let secretKey = Hex.encode(SecureRandom.bytes(count: 32))
        let adminToken = "admin-" + Hex.encode(SecureRandom.bytes(count: 8))

        var server = try Server(
            dataDirectory: data.path, standIn: standIn, secretKey: secretKey, adminToken: adminToken)
        let admin = TestHTTPClient(port: server.port)
        let auth = [("Authorization", "Bearer \(adminToken)")]
        let created = try admin.request("POST", "/api/admin/businesses", headers: auth, json: #"{"name":"Crash Co"}"#)
        let businessID = try #require((created.json as? [String: Any])?["id"] as? Int)
        let key = P256PrivateKey.generate()
        try standIn.registerAPNsKey(keyID: "CRASH12345", teamID: "TEAM123456", topic: "com.example.crash", key: key)
        let credential = try admin.request(
            "PUT", "/api/admin/businesses/\(businessID)/apns", headers: auth,
            json: JSON.object([
                ("key_p8", .string(key.pemRepresentation)), ("key_id", "CRASH12345"), ("team_id", "TEAM123456"),
                ("topic", "com.example.crash"), ("environment", "production"),
            ]).encodedString)
        #expect(credential.status == 200)

        // 10,000 users with an iPhone each, written straight into the database the server uses.
        let database = try SQLiteDatabase(path: data.file("herald.db"))
        let store = try Store(database: database)
        let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        let userIDs = try store.transaction { tx in
            try (0..<total).map { index in
                let user = try tx.users.insert(
                    NewUser(
                        businessID: Int64(businessID), email: "user\(index)@example.com", passwordHash: "x",
                        firstName: "U", lastName: "\(index)"),
                    at: now)
                var (device, _) = try tx.devices.findOrInsert(
                    businessID: Int64(businessID), key: "device-\(index)", userID: user.id, platform: .apns, at: now)
                device.token = randomAPNsToken()
                device.tokenUpdatedAt = now
                try tx.devices.save(device)
                return user.id
            }
        }

        let news = try admin.request(
            "POST", "/api/admin/businesses/\(businessID)/notifications", headers: auth,
            json: JSON.object([
                ("user_ids", .array(userIDs.map { .int($0) })), ("title", "Flash sale"),
                ("body", "Everything half price"),
            ]).encodedString)
        #expect(news.status == 202, "\(news)")
        let notificationIDs = try #require((news.json as? [String: Any])?["notification_ids"] as? [Int])
        #expect(notificationIDs.count == total)

        // Kill it mid-send.
        try Poll.until(timeout: .seconds(120)) {
            try standIn.stats()["apns"]?["accepted"]?.int64Value ?? 0 >= Int64(total / 4)
        }
        let metrics = try admin.request("GET", "/metrics", headers: auth).text
        let inFlight =
            metrics.split(separator: "\n").first { $0.hasPrefix("herald_delivery_in_flight ") }
            .flatMap { Double($0.split(separator: " ").last ?? "") } ?? -1
        server.kill()
        let atKill = try standIn.stats()["apns"]?["accepted"]?.int64Value ?? 0
        #expect(atKill < Int64(total), "the kill came before the end")

        // Restart on the same data: every job ends delivered.
        server = try Server(dataDirectory: data.path, standIn: standIn, secretKey: secretKey, adminToken: adminToken)
        // Another process writes it: nothing here hears its commits, so the count is looked at until it is whole.
        var delivered: Int64 = 0
        try Poll.until(timeout: .seconds(180), every: .milliseconds(100)) {
            delivered = try database.read { db in
                try db.scalar("SELECT COUNT(*) FROM deliveries WHERE status = 'delivered'")
            }
            return delivered >= Int64(total)
        }
        let statuses = try database.read { db in
            try db.rows("SELECT status, COUNT(*) FROM deliveries GROUP BY status").map { "\($0.text(0))=\($0.int(1))" }
        }
        #expect(delivered == Int64(total), "\(statuses)")

        let stats = try standIn.stats()
        let distinct = stats["apns"]?["distinct_accepted_apns_ids"]?.int64Value ?? 0
        let duplicates = stats["apns"]?["duplicate_apns_ids"]?.int64Value ?? -1
        #expect(distinct == Int64(total), "every push reached Apple at least once")
        #expect(
            stats["apns"]?["token_updates_rejected"]?.int64Value == 0,
            "the restarted node sent with the stored provider token, not a new one Apple would refuse")
        print(
            "crash recovery: killed after \(atKill) of \(total) accepted, \(Int(inFlight)) in flight;"
                + " duplicate apns-ids after restart: \(duplicates)")
        // What was in flight at the kill is sent again, and answers not yet written (at most a record batch):
        // never more than the engine lets out at once. The app dedupes them on the payload's `n`.
        let defaults = DeliveryEngine.Configuration(owner: "")
        let bound = Int64(defaults.concurrency + defaults.recordBatch)
        #expect(duplicates >= 0 && duplicates <= bound, "duplicates are bounded by what may be in flight at the kill")

        // SIGTERM: a clean exit.
        #expect(server.terminate() == 0)
    }
}
