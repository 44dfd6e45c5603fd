import Foundation

/// `herald serve`'s settings as one table: the parser, `herald serve --help` and the README's configuration table
/// are all made from it (a test checks the README against `markdownTable`).
extension HeraldConfiguration {
    /// One setting: its flag (if it has one), its environment variable, its default and what it does.
    package struct Option: Sendable {
        /// The flag without `--`, or nil for a setting read from the environment only.
        package let flag: String?
        /// True when the flag takes a value (`--port 9000`); false for a switch (`--no-delivery`).
        package let takesValue: Bool
        /// The environment variable, as written in the table (`HERALD_DELIVERY=off` for a switch).
        package let environment: String
        /// The default, as a person reads it.
        package let defaultValue: String
        /// What it sets.
        package let help: String

        init(_ flag: String?, value: Bool = true, _ environment: String, _ defaultValue: String, _ help: String) {
            self.flag = flag
            self.takesValue = value
            self.environment = environment
            self.defaultValue = defaultValue
            self.help = help
        }
    }

    /// Every setting of `herald serve`, in the order the help shows them.
    package static let options: [Option] = [
        Option("host", "HERALD_HOST", "`127.0.0.1`", "address the HTTP API binds (`0.0.0.0` for every interface)"),
        Option("port", "HERALD_PORT", "`8080`", "port the HTTP API binds (0: any free port)"),
        Option(
            "reuse-port", value: false, "HERALD_REUSE_PORT=on", "off: a port in use is an error",
            "share the port with other processes (SO_REUSEPORT): the kernel splits connections between them"),
        Option("data-dir", "HERALD_DATA_DIR", "`./herald-data`", "database, keys, admin token and media"),
        Option(
            "database", "HERALD_DATABASE", "`sqlite:<data-dir>/herald.db`",
            "`sqlite:<path>`, or `postgres://user:password@host:port/db` (several nodes may share one)"),
        Option(
            nil, "HERALD_ADMIN_TOKEN",
            "generated at first start, kept in `<data-dir>/admin-token` (0600), printed once",
            "bearer token of the admin API"),
        Option(
            nil, "HERALD_SECRET_KEY", "generated into `<data-dir>/secret.key` (0600)",
            "32-byte key (hex or base64) sealing secrets at rest"),
        Option(
            "apns-url", "HERALD_APNS_URL", "`https://api.push.apple.com`",
            "base URL replacing Apple's production host, and its sandbox host unless the next is set (a stand-in: "
                + "`scripts/standin`)"),
        Option(
            "apns-sandbox-url", "HERALD_APNS_SANDBOX_URL",
            "`--apns-url` if set, else `https://api.sandbox.push.apple.com`", "base URL replacing Apple's sandbox host"),
        Option("fcm-url", "HERALD_FCM_URL", "`https://fcm.googleapis.com`", "base URL replacing Google's FCM host"),
        Option(
            "ca-file", "HERALD_CA_FILE", "system trust store only",
            "PEM file trusted for outgoing TLS in addition to the system store"),
        Option(
            "public-url", "HERALD_PUBLIC_URL", "`http://<host>:<port>` as bound",
            "base of hosted media links and survey pages (`survey_url`): the address phones reach"),
        Option(
            "log-level", "HERALD_LOG_LEVEL", "`info`",
            "trace, debug, info (one line per request), notice, warning or error"),
        Option("log-format", "HERALD_LOG_FORMAT", "`logfmt`", "`logfmt` or `json` (one JSON object per line)"),
        Option("http-threads", "HERALD_HTTP_THREADS", "2 × cores, at least 4", "HTTP server threads"),
        Option(
            "no-delivery", value: false, "HERALD_DELIVERY=off", "delivery workers on",
            "run no delivery workers in this process"),
        Option(
            "delivery-concurrency", "HERALD_DELIVERY_CONCURRENCY", "`4096`",
            "most sends in flight over all credentials (a memory bound: a push waits only for a free stream)"),
        Option(
            "delivery-min-concurrency", "HERALD_DELIVERY_MIN_CONCURRENCY", "unset: no adaptive window",
            "set, sends in flight narrow down to it as round trips grow: fewer sent twice after a crash, slower"),
        Option(
            "fcm-quota-per-minute", "HERALD_FCM_QUOTA_PER_MINUTE", "`600000`",
            "FCM sends a minute per Firebase project, all nodes on the database together (Google's default quota per "
                + "project); Herald sends at 98 % of it; `PUT /api/admin/businesses/{id}/fcm/quota` overrides it for one "
                + "project"),
        Option(
            "delivery-lease", "HERALD_DELIVERY_LEASE", "`60`",
            "seconds a node holds a claimed push before another may take it (a provider request gets at most 40 % of it)"
        ),
        Option(
            "provider-connections", "HERALD_PROVIDER_CONNECTIONS", "`4`",
            "HTTP/2 connections per credential (an APNs key, or FCM) for all nodes on one database together, "
                + "leased through it and shared evenly among the nodes sending with it; opened as their streams fill"),
        Option(
            "provider-streams", "HERALD_PROVIDER_STREAMS", "`1000`",
            "most streams per connection; fewer when the provider's SETTINGS_MAX_CONCURRENT_STREAMS says so"),
        Option("password-cost", "HERALD_PASSWORD_COST", "`16384`", "scrypt N for user passwords (a power of two)"),
        Option(
            "password-threads", "HERALD_PASSWORD_THREADS", "cores − 1, at least 1",
            "threads running sign-ups, logins and password changes (they hash passwords) off the HTTP threads; "
                + "256 more wait their turn, the next is answered 503 with Retry-After"),
        Option(
            "head-timeout", "HERALD_HEAD_TIMEOUT", "`10`",
            "seconds a connection has for a whole request head, however steadily it trickles"),
        Option(
            "connections-per-address", "HERALD_CONNECTIONS_PER_ADDRESS", "`256`",
            "most connections from one client address; more are answered 503 with Retry-After"),
        Option(
            "trusted-proxies", "HERALD_TRUSTED_PROXIES", "none",
            "comma-separated addresses or CIDR ranges of the proxies in front of Herald: only from them is the "
                + "client's address (for the per-address limits and the log) read from Forwarded or X-Forwarded-For "
                + "(the right-most hop that is no trusted proxy; the proxy must replace what the client sent, not "
                + "append to it), and their connections are not capped by --connections-per-address"),
        Option(
            "reserved-connections", "HERALD_RESERVED_CONNECTIONS", "`64`",
            "connections kept beyond the limit of 10,000 for `/healthz` and `/metrics` only"),
        Option(
            "max-devices-per-user", "HERALD_MAX_DEVICES_PER_USER", "`10`",
            "devices one user keeps; registering one more removes the least recently updated"),
        Option(
            "auth-rate-per-address", "HERALD_AUTH_RATE_PER_ADDRESS", "`60`",
            "sign-ups, logins and password checks a minute from one address (0: no limit; per node)"),
        Option(
            "auth-failures-per-account", "HERALD_AUTH_FAILURES_PER_ACCOUNT", "`10`",
            "failed logins and password checks on one account from one address before each further try from there "
                + "waits 5 s after the last, doubling to 15 min; a success clears them; others' failures never count "
                + "(0: no delay; per node)"),
        Option(
            "auth-rate-per-account", "HERALD_AUTH_RATE_PER_ACCOUNT", "unset",
            "deprecated (it limited logins a minute per account, which let anyone lock an owner out): its value is "
                + "taken as `--auth-failures-per-account` unless that is set too, with a warning at start"),
        Option(
            "mobile-rate-per-business", "HERALD_MOBILE_RATE_PER_BUSINESS", "`2000`",
            "mobile API requests a second for one business before signing in (sign-up, login), counted once their "
                + "x-pch-digest holds; no client address takes more than a fair share of it (0: no limit; per node)"),
        Option(
            "mobile-rate-per-user", "HERALD_MOBILE_RATE_PER_USER", "`50`",
            "signed-in mobile API requests a second for one user, counted once digest and access token hold "
                + "(0: no limit; per node)"),
        Option(
            "device-rate-per-install", "HERALD_DEVICE_RATE_PER_INSTALL", "`300`",
            "device API requests a minute for one install, counted once its signature holds (0: no limit; per node)"),
        Option(
            "install-rate-per-address", "HERALD_INSTALL_RATE_PER_ADDRESS", "`30`",
            "install registrations (POST /api/v1/installs) a minute from one address (0: no limit; per node)"),
        Option(
            "pos-rate-per-key", "HERALD_POS_RATE_PER_KEY", "`200`",
            "POS API requests a second for one POS key (0: no limit; per node)"),
        Option(
            "influence-window-hours", "HERALD_INFLUENCE_WINDOW_HOURS", "`24`",
            "an app open this long after a campaign push's delivery is an influenced open"),
    ]

    /// The option whose flag is `flag` (without `--`).
    static func option(flag: String) -> Option? { options.first { $0.flag == flag } }

    /// The flag closest to `unknown`, if one is close enough to be what was meant.
    package static func suggestion(for unknown: String) -> String? {
        let flags = options.compactMap(\.flag) + ["help"]
        let scored = flags.map { ($0, editDistance(unknown, $0)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        if best.1 <= max(2, best.0.count / 4) { return best.0 }
        if let prefixed = flags.first(where: { $0.hasPrefix(unknown) || unknown.hasPrefix($0) }), unknown.count >= 3 {
            return prefixed
        }
        return nil
    }

    /// How many single-character edits turn `a` into `b` (Levenshtein).
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = Swift.min(
                    previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// `herald serve --help`: every flag with its environment variable and default.
    package static var helpText: String {
        var lines = [
            "usage: herald serve [flags]", "",
            "Runs the HTTP API, the delivery workers and the scheduler in one process.",
            "Each flag can also be set in the environment; a flag wins over its variable.", "",
        ]
        for option in options {
            let flag = option.flag.map { "--" + $0 + (option.takesValue ? " VALUE" : "") } ?? "(environment only)"
            lines.append("  \(flag)")
            lines.append("      \(option.help)")
            lines.append("      env \(option.environment); default: \(plain(option.defaultValue))")
        }
        return lines.joined(separator: "\n")
    }

    /// The README's configuration table, row for row.
    package static var markdownTable: String {
        var lines = ["| Flag | Environment | Default | What it sets |", "|---|---|---|---|"]
        for option in options {
            let flag = option.flag.map { "`--\($0)`" } ?? ""
            lines.append("| \(flag) | `\(option.environment)` | \(option.defaultValue) | \(option.help) |")
        }
        return lines.joined(separator: "\n")
    }

    private static func plain(_ text: String) -> String { text.replacingOccurrences(of: "`", with: "") }
}
