import HeraldHTTPServer
import HeraldObservability

extension HeraldConfiguration {
    /// Why the command line or environment could not be read.
    package struct ConfigurationError: Error, CustomStringConvertible {
        /// What is wrong.
        package let description: String

        /// An error saying `description`.
        package init(description: String) { self.description = description }
    }

    /// Reads the configuration from flags, falling back to the environment, then the defaults: `options` lists them.
    package static func read(arguments: [String], environment: [String: String]) throws -> HeraldConfiguration {
        var flags: [String: String] = [:]
        var switches: Set<String> = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else {
                throw ConfigurationError(description: "unexpected argument \(argument)")
            }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let option = option(flag: name) else {
                let hint = suggestion(for: name).map { " (did you mean --\($0)?)" } ?? ""
                throw ConfigurationError(
                    description: "unknown flag --\(name)\(hint); `herald serve --help` lists them")
            }
            if option.takesValue {
                if value == nil {
                    index += 1
                    guard index < arguments.count else {
                        throw ConfigurationError(description: "--\(name) needs a value")
                    }
                    value = arguments[index]
                }
                flags[name] = value
            } else {
                guard value == nil else { throw ConfigurationError(description: "--\(name) takes no value") }
                switches.insert(name)
            }
            index += 1
        }
        func value(_ flag: String, _ variable: String) -> String? {
            if let flagged = flags[flag] { return flagged }
            if let set = environment[variable], !set.isEmpty { return set }
            return nil
        }
        func integer(_ flag: String, _ variable: String, in range: ClosedRange<Int>) throws -> Int? {
            guard let text = value(flag, variable) else { return nil }
            guard let number = Int(text), range.contains(number) else {
                throw ConfigurationError(
                    description: "--\(flag) / \(variable) must be a number in \(range), not \(text)")
            }
            return number
        }

        var configuration = HeraldConfiguration()
        if let host = value("host", "HERALD_HOST") { configuration.host = host }
        if let port = try integer("port", "HERALD_PORT", in: 0...65535) { configuration.port = port }
        if let directory = value("data-dir", "HERALD_DATA_DIR") { configuration.dataDirectory = directory }
        configuration.database = value("database", "HERALD_DATABASE")
        configuration.adminToken = environment["HERALD_ADMIN_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.secretKey = environment["HERALD_SECRET_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.apnsURL = value("apns-url", "HERALD_APNS_URL")
        configuration.apnsSandboxURL = value("apns-sandbox-url", "HERALD_APNS_SANDBOX_URL")
        configuration.fcmURL = value("fcm-url", "HERALD_FCM_URL")
        configuration.caFile = value("ca-file", "HERALD_CA_FILE")
        configuration.publicURL = value("public-url", "HERALD_PUBLIC_URL")
        if let level = value("log-level", "HERALD_LOG_LEVEL") {
            guard let parsed = Logger.Level(name: level) else {
                throw ConfigurationError(
                    description: "unknown log level \(level); use trace, debug, info, notice, warning or error")
            }
            configuration.logLevel = parsed
        }
        if let format = value("log-format", "HERALD_LOG_FORMAT") {
            guard let parsed = Logger.Format(rawValue: format.lowercased()) else {
                throw ConfigurationError(description: "unknown log format \(format); use logfmt or json")
            }
            configuration.logFormat = parsed
        }
        configuration.reusePort = switches.contains("reuse-port") || environment["HERALD_REUSE_PORT"] == "on"
        configuration.httpThreads = try integer("http-threads", "HERALD_HTTP_THREADS", in: 1...1024)
        if switches.contains("no-delivery") || environment["HERALD_DELIVERY"] == "off" {
            configuration.delivery.enabled = false
        }
        if let concurrency = try integer("delivery-concurrency", "HERALD_DELIVERY_CONCURRENCY", in: 1...100_000) {
            configuration.delivery.concurrency = concurrency
        }
        if let least = try integer("delivery-min-concurrency", "HERALD_DELIVERY_MIN_CONCURRENCY", in: 1...100_000) {
            guard least <= configuration.delivery.concurrency else {
                throw ConfigurationError(
                    description: "--delivery-min-concurrency must not exceed --delivery-concurrency "
                        + "(\(configuration.delivery.concurrency)), not \(least)")
            }
            configuration.delivery.minimumConcurrency = least
        }
        if let quota = try integer("fcm-quota-per-minute", "HERALD_FCM_QUOTA_PER_MINUTE", in: 1...100_000_000) {
            configuration.delivery.fcmQuotaPerMinute = quota
        }
        if let connections = try integer("provider-connections", "HERALD_PROVIDER_CONNECTIONS", in: 1...64) {
            configuration.delivery.connectionsPerHost = connections
        }
        if let streams = try integer("provider-streams", "HERALD_PROVIDER_STREAMS", in: 1...100_000) {
            configuration.delivery.streamsPerConnection = streams
        }
        if let seconds = try integer("delivery-lease", "HERALD_DELIVERY_LEASE", in: 2...86_400) {
            configuration.delivery.lease = .seconds(Int64(seconds))
        }
        if let cost = try integer("password-cost", "HERALD_PASSWORD_COST", in: 2...1_048_576) {
            guard cost & (cost - 1) == 0 else {
                throw ConfigurationError(description: "--password-cost must be a power of two")
            }
            configuration.passwordCost = UInt64(cost)
        }
        if let seconds = try integer("head-timeout", "HERALD_HEAD_TIMEOUT", in: 1...3600) {
            configuration.headTimeout = .seconds(seconds)
        }
        if let count = try integer("connections-per-address", "HERALD_CONNECTIONS_PER_ADDRESS", in: 1...100_000) {
            configuration.connectionsPerAddress = count
        }
        if let text = value("trusted-proxies", "HERALD_TRUSTED_PROXIES") {
            do {
                configuration.trustedProxies = try TrustedProxies(parsing: text)
            } catch {
                throw ConfigurationError(description: "--trusted-proxies / HERALD_TRUSTED_PROXIES: \(error)")
            }
        }
        if let count = try integer("reserved-connections", "HERALD_RESERVED_CONNECTIONS", in: 0...10_000) {
            configuration.reservedConnections = count
        }
        if let count = try integer("max-devices-per-user", "HERALD_MAX_DEVICES_PER_USER", in: 1...10_000) {
            configuration.maxDevicesPerUser = count
        }
        if let rate = try integer("auth-rate-per-address", "HERALD_AUTH_RATE_PER_ADDRESS", in: 0...1_000_000) {
            configuration.authPerAddressPerMinute = rate
        }
        let failures = try integer("auth-failures-per-account", "HERALD_AUTH_FAILURES_PER_ACCOUNT", in: 0...1_000_000)
        if let count = failures {
            configuration.authFailuresPerAccount = count
        }
        // The limit it replaced (issue 35): an old configuration still starts, and says what its value now means.
        if let old = try integer("auth-rate-per-account", "HERALD_AUTH_RATE_PER_ACCOUNT", in: 0...1_000_000) {
            if failures == nil { configuration.authFailuresPerAccount = old }
            configuration.deprecatedSettings.append(
                DeprecatedSetting(
                    name: "--auth-rate-per-account / HERALD_AUTH_RATE_PER_ACCOUNT",
                    replacement: "--auth-failures-per-account / HERALD_AUTH_FAILURES_PER_ACCOUNT",
                    effect: failures == nil
                        ? "taken as --auth-failures-per-account \(old): logins are no longer limited per account, "
                            + "failed ones wait per account and address after that many (0: no delay)"
                        : "ignored: --auth-failures-per-account is set too"))
        }
        if let rate = try integer("mobile-rate-per-business", "HERALD_MOBILE_RATE_PER_BUSINESS", in: 0...1_000_000) {
            configuration.mobilePerBusinessPerSecond = rate
        }
        if let rate = try integer("mobile-rate-per-user", "HERALD_MOBILE_RATE_PER_USER", in: 0...1_000_000) {
            configuration.mobilePerUserPerSecond = rate
        }
        if let rate = try integer("device-rate-per-install", "HERALD_DEVICE_RATE_PER_INSTALL", in: 0...1_000_000) {
            configuration.devicePerInstallPerMinute = rate
        }
        if let rate = try integer("install-rate-per-address", "HERALD_INSTALL_RATE_PER_ADDRESS", in: 0...1_000_000) {
            configuration.installsPerAddressPerMinute = rate
        }
        if let rate = try integer("pos-rate-per-key", "HERALD_POS_RATE_PER_KEY", in: 0...1_000_000) {
            configuration.posPerKeyPerSecond = rate
        }
        configuration.passwordThreads = try integer("password-threads", "HERALD_PASSWORD_THREADS", in: 1...1024)
        if let hours = try integer("influence-window-hours", "HERALD_INFLUENCE_WINDOW_HOURS", in: 1...720) {
            configuration.influenceWindow = .seconds(Int64(hours) * 3600)
        }
        if let url = configuration.database,
            !(url.hasPrefix("sqlite:") || url.hasPrefix("postgres://") || url.hasPrefix("postgresql://"))
        {
            throw ConfigurationError(description: "--database must be sqlite:<path> or postgres://…, not \(url)")
        }
        if configuration.database == "sqlite:" {
            throw ConfigurationError(
                description:
                    "--database sqlite: names no file; write sqlite:<path>, e.g. sqlite:./herald-data/herald.db")
        }
        return configuration
    }
}
