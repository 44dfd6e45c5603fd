import HeraldObservability

extension HeraldConfiguration {
    /// Why the command line or environment could not be read.
    public struct ConfigurationError: Error, CustomStringConvertible {
        /// What is wrong.
        public let description: String

        /// An error saying `description`.
        public init(description: String) { self.description = description }
    }

    /// Reads the configuration from flags, falling back to the environment, then the defaults.
    ///
    /// | Flag | Environment | Default |
    /// |---|---|---|
    /// | `--host` | `HERALD_HOST` | 127.0.0.1 |
    /// | `--port` | `HERALD_PORT` | 8080 |
    /// | `--data-dir` | `HERALD_DATA_DIR` | ./herald-data |
    /// | `--database` | `HERALD_DATABASE` | sqlite:<data-dir>/herald.db |
    /// | | `HERALD_ADMIN_TOKEN` | generated once, kept in the data dir |
    /// | | `HERALD_SECRET_KEY` | generated once, kept in the data dir (0600) |
    /// | `--apns-url` | `HERALD_APNS_URL` | Apple's hosts |
    /// | `--fcm-url` | `HERALD_FCM_URL` | https://fcm.googleapis.com |
    /// | `--ca-file` | `HERALD_CA_FILE` | system store only |
    /// | `--public-url` | `HERALD_PUBLIC_URL` | http://host:port |
    /// | `--log-level` | `HERALD_LOG_LEVEL` | info |
    /// | `--http-threads` | `HERALD_HTTP_THREADS` | 2 × cores, at least 4 |
    /// | `--no-delivery` | `HERALD_DELIVERY=off` | workers on |
    /// | `--delivery-concurrency` | `HERALD_DELIVERY_CONCURRENCY` | 4096 |
    /// | `--delivery-min-concurrency` | `HERALD_DELIVERY_MIN_CONCURRENCY` | none (no adaptive window) |
    /// | `--delivery-lease` | `HERALD_DELIVERY_LEASE` | 60 (seconds a claim is held before another node may take it) |
    /// | `--password-cost` | `HERALD_PASSWORD_COST` | 16384 (scrypt N) |
    /// | `--influence-window-hours` | `HERALD_INFLUENCE_WINDOW_HOURS` | 24 |
    public static func read(arguments: [String], environment: [String: String]) throws -> HeraldConfiguration {
        var flags: [String: String] = [:]
        var switches: Set<String> = []
        var index = 0
        let valueFlags: Set<String> = [
            "host", "port", "data-dir", "database", "apns-url", "fcm-url", "ca-file", "public-url", "log-level",
            "http-threads", "delivery-concurrency", "delivery-min-concurrency", "delivery-lease", "password-cost",
            "influence-window-hours",
        ]
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
            if valueFlags.contains(name) {
                if value == nil {
                    index += 1
                    guard index < arguments.count else {
                        throw ConfigurationError(description: "--\(name) needs a value")
                    }
                    value = arguments[index]
                }
                flags[name] = value
            } else if name == "no-delivery" {
                switches.insert(name)
            } else {
                throw ConfigurationError(description: "unknown flag --\(name)")
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
        if let seconds = try integer("delivery-lease", "HERALD_DELIVERY_LEASE", in: 2...86_400) {
            configuration.delivery.lease = .seconds(Int64(seconds))
        }
        if let cost = try integer("password-cost", "HERALD_PASSWORD_COST", in: 2...1_048_576) {
            guard cost & (cost - 1) == 0 else {
                throw ConfigurationError(description: "--password-cost must be a power of two")
            }
            configuration.passwordCost = UInt64(cost)
        }
        if let hours = try integer("influence-window-hours", "HERALD_INFLUENCE_WINDOW_HOURS", in: 1...720) {
            configuration.influenceWindow = .seconds(Int64(hours) * 3600)
        }
        if let url = configuration.database,
            !(url.hasPrefix("sqlite:") || url.hasPrefix("postgres://") || url.hasPrefix("postgresql://"))
        {
            throw ConfigurationError(description: "--database must be sqlite:<path> or postgres://…, not \(url)")
        }
        return configuration
    }
}
