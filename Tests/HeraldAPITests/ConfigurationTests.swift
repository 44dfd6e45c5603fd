import Foundation
import HeraldObservability
import HeraldAPI
import Testing

/// `herald serve`'s flags (the README's "Configuration"), each falling back to its environment variable, then the default.
@Suite("herald serve: flags and environment")
struct ConfigurationTests {
    private func read(_ arguments: [String], _ environment: [String: String] = [:]) throws -> HeraldConfiguration {
        try HeraldConfiguration.read(arguments: arguments, environment: environment)
    }

    @Test("the README's configuration table is the one in the code, row for row")
    func theReadmeTableIsTheCodes() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(
            readme.contains(HeraldConfiguration.markdownTable + "\n"),
            "paste this table into the README's Configuration:\n\(HeraldConfiguration.markdownTable)")
    }

    @Test func nearMissesAreSuggested() {
        #expect(HeraldConfiguration.suggestion(for: "prot") == "port")
        #expect(HeraldConfiguration.suggestion(for: "data-directory") == "data-dir")
        #expect(HeraldConfiguration.suggestion(for: "log-levle") == "log-level")
        #expect(HeraldConfiguration.suggestion(for: "verbose") == nil)
    }

    @Test func theLogFormatAndReusePortAreRead() throws {
        #expect(try read([]).logFormat == .logfmt)
        #expect(try read(["--log-format", "json"]).logFormat == .json)
        #expect(try read([], ["HERALD_LOG_FORMAT": "JSON"]).logFormat == .json)
        #expect(try !read([]).reusePort)
        #expect(try read(["--reuse-port"]).reusePort)
        #expect(try read([], ["HERALD_REUSE_PORT": "on"]).reusePort)
    }

    @Test func theDefaults() throws {
        let configuration = try read([])
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.dataDirectory == "./herald-data")
        #expect(configuration.database == nil)
        #expect(configuration.adminToken == nil)
        #expect(configuration.delivery.enabled)
        #expect(configuration.delivery.concurrency == 4096)
        #expect(configuration.delivery.minimumConcurrency == nil, "no adaptive window unless asked for")
        #expect(configuration.passwordCost == 16384)
    }

    @Test func flagsWinOverTheEnvironmentWhichWinsOverTheDefaults() throws {
        let environment = ["HERALD_PORT": "9000", "HERALD_HOST": "0.0.0.0", "HERALD_LOG_LEVEL": "debug"]
        let fromEnvironment = try read([], environment)
        #expect(fromEnvironment.port == 9000)
        #expect(fromEnvironment.host == "0.0.0.0")
        #expect(fromEnvironment.logLevel == .debug)
        let flagged = try read(["--port", "9100", "--host=::1"], environment)
        #expect(flagged.port == 9100)
        #expect(flagged.host == "::1")
        // An empty variable counts as unset.
        #expect(try read([], ["HERALD_PORT": ""]).port == 8080)
    }

    @Test func theInfluenceWindowIsReadInHours() throws {
        #expect(try read([]).influenceWindow == .seconds(86_400))
        #expect(try read(["--influence-window-hours", "6"]).influenceWindow == .seconds(6 * 3600))
        #expect(try read([], ["HERALD_INFLUENCE_WINDOW_HOURS": "48"]).influenceWindow == .seconds(48 * 3600))
        #expect(throws: HeraldConfiguration.ConfigurationError.self) { try read(["--influence-window-hours", "0"]) }
    }

    @Test func everyFlagIsRead() throws {
        let configuration = try read(
            [
                "--data-dir", "/var/lib/herald", "--database", "sqlite:/tmp/h.db", "--apns-url", "https://apns.test",
                "--fcm-url", "https://fcm.test", "--ca-file", "/etc/ca.pem", "--public-url", "https://push.example.com",
                "--http-threads", "8", "--delivery-concurrency", "64", "--delivery-min-concurrency", "64",
                "--password-cost", "1024", "--delivery-lease", "5", "--no-delivery", "--fcm-quota-per-minute", "1200",
            ], ["HERALD_ADMIN_TOKEN": "token", "HERALD_SECRET_KEY": String(repeating: "0", count: 64)])
        #expect(configuration.dataDirectory == "/var/lib/herald")
        #expect(configuration.database == "sqlite:/tmp/h.db")
        #expect(configuration.apnsURL == "https://apns.test")
        #expect(configuration.fcmURL == "https://fcm.test")
        #expect(configuration.caFile == "/etc/ca.pem")
        #expect(configuration.publicURL == "https://push.example.com")
        #expect(configuration.httpThreads == 8)
        #expect(configuration.delivery.concurrency == 64)
        #expect(configuration.delivery.minimumConcurrency == 64)
        #expect(configuration.delivery.fcmQuotaPerMinute == 1200)
        #expect(try read([], [:]).delivery.fcmQuotaPerMinute == 600_000, "Google's default quota a project")
        #expect(configuration.passwordCost == 1024)
        #expect(configuration.delivery.lease == .seconds(5))
        #expect(try read([], ["HERALD_DELIVERY_LEASE": "30"]).delivery.lease == .seconds(30))
        #expect(!configuration.delivery.enabled)
        #expect(configuration.adminToken == "token")
        #expect(try !read([], ["HERALD_DELIVERY": "off"]).delivery.enabled)
    }

    @Test("the replaced --auth-rate-per-account still starts Herald: taken as --auth-failures-per-account, warned of")
    func theOldPerAccountLimitIsADeprecatedAlias() throws {
        let flagged = try read(["--auth-rate-per-account", "7"])
        #expect(flagged.authFailuresPerAccount == 7)
        #expect(flagged.deprecatedSettings.map(\.name) == ["--auth-rate-per-account / HERALD_AUTH_RATE_PER_ACCOUNT"])
        #expect(flagged.deprecatedSettings.first?.effect.hasPrefix("taken as --auth-failures-per-account 7") == true)
        #expect(try read([], ["HERALD_AUTH_RATE_PER_ACCOUNT": "0"]).authFailuresPerAccount == 0, "0: off, as before")
        // The new one set too wins; the old one is said to be ignored.
        let both = try read(["--auth-failures-per-account", "3"], ["HERALD_AUTH_RATE_PER_ACCOUNT": "9"])
        #expect(both.authFailuresPerAccount == 3)
        #expect(both.deprecatedSettings.first?.effect == "ignored: --auth-failures-per-account is set too")
        #expect(try read([]).deprecatedSettings.isEmpty)
        #expect(throws: HeraldConfiguration.ConfigurationError.self) { try read(["--auth-rate-per-account", "x"]) }
    }

    @Test func aSmallConcurrencyAloneKeepsTheWindowFixed() throws {
        let configuration = try read(["--delivery-concurrency", "8"])
        #expect(configuration.delivery.concurrency == 8)
        #expect(configuration.delivery.minimumConcurrency == nil)
    }

    @Test(arguments: [
        (["--port", "70000"], "--port"),
        (["--port", "eighty"], "--port"),
        (["--port"], "needs a value"),
        (["--verbose"], "unknown flag --verbose"),
        (["serve"], "unexpected argument serve"),
        (["--log-level", "loud"], "unknown log level"),
        (["--password-cost", "1000"], "power of two"),
        (["--http-threads", "0"], "--http-threads"),
        (["--delivery-lease", "1"], "--delivery-lease"),
        (["--delivery-concurrency", "64", "--delivery-min-concurrency", "128"], "must not exceed"),
        (["--database", "mysql://db"], "sqlite:<path> or postgres"),
        (["--database", "sqlite:"], "names no file"),
        (["--log-format", "xml"], "unknown log format"),
        (["--no-delivery=yes"], "takes no value"),
    ])
    func badValuesAreRefusedWithTheReason(_ arguments: [String], _ reason: String) {
        #expect {
            try read(arguments)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }
}
