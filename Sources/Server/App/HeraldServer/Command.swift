import Dispatch
import Foundation
import HeraldHTTPServer
import HeraldLifecycle
import HeraldModel
import HeraldObservability
import HeraldSQLite
import HeraldAPI

/// The `herald` command line.
public enum Command {
    static let usage = """
        usage: herald <command> [flags]

        commands:
          serve                      run the HTTP API, delivery workers and scheduler in one process
                                     (`herald serve --help` lists every flag, its environment variable and default)
          backup --to FILE           copy the database into FILE (a new file), consistent while Herald serves
          restore --from FILE        replace the database with a backup (stop Herald first)
          admin create-business --name NAME
                                     a business; prints its id, client id, secret, POS key and API keys (once)
          admin set-apns --business ID --p8 FILE --key-id KEY --team-id TEAM --topic BUNDLE [--environment sandbox]
                                     the business's APNs key (token auth; production unless --environment sandbox)
          admin set-fcm --business ID --service-account FILE
                                     the business's FCM service account (its key file's JSON)
          admin businesses           the businesses and their credentials' status
          version                    the version and build
          help                       this text

        backup, restore and admin read --data-dir / --database (or HERALD_DATA_DIR / HERALD_DATABASE) and the secret
        key as serve does. admin works on that database through the admin API's own rules, in this process; a server
        already running on it sees a new or replaced credential when it next looks at the business's waiting pushes
        (at most 10 minutes): the admin API (PUT /api/admin/businesses/ID/apns) tells it at once.
        """

    /// The allocator the binary runs with, as `herald version` names it (set by `main` when it links jemalloc).
    nonisolated(unsafe) public static var allocator = "the C library's malloc"

    /// The commands, for "did you mean".
    static let commands = ["serve", "backup", "restore", "admin", "version", "help"]

    /// The `admin` subcommands: the admin API route each one calls, and the flags it takes.
    static let adminCommands: [(name: String, flags: [String])] = [
        ("create-business", ["name"]),
        ("set-apns", ["business", "p8", "key-id", "team-id", "topic", "environment"]),
        ("set-fcm", ["business", "service-account"]),
        ("businesses", []),
    ]

    /// Runs the command in `arguments` and exits.
    public static func main(arguments: [String]) async -> Never {
        guard let command = arguments.first else {
            FileHandle.standardError.write(Data((usage + "\n").utf8))
            exit(2)
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "serve":
            if rest.contains("--help") || rest.contains("-h") {
                print(HeraldConfiguration.helpText)
                exit(0)
            }
            await serve(rest)
        case "backup", "restore":
            if rest.contains("--help") || rest.contains("-h") {
                print(usage)
                exit(0)
            }
            copyDatabase(command, rest)
        case "admin":
            if rest.isEmpty || rest.contains("--help") || rest.contains("-h") {
                print(usage)
                exit(rest.isEmpty ? 2 : 0)
            }
            admin(rest[0], Array(rest.dropFirst()))
        case "version", "--version":
            print(BuildInfo.versionLine)
            print("allocator: \(allocator)")
            exit(0)
        case "help", "--help", "-h":
            if rest.first == "serve" {
                print(HeraldConfiguration.helpText)
            } else if rest.first == "configuration-table" {
                // The README's table, made from the same one `serve --help` is (a test compares them).
                print(HeraldConfiguration.markdownTable)
            } else {
                print(usage)
            }
            exit(0)
        default:
            fail("unknown command \(command)\(didYouMean(command, among: commands))\n\(usage)", status: 2)
        }
    }

    static func serve(_ arguments: [String]) async -> Never {
        let environment = ProcessInfo.processInfo.environment
        var configuration: HeraldConfiguration
        do {
            configuration = try HeraldConfiguration.read(arguments: arguments, environment: environment)
        } catch {
            fail("\(error)", status: 2)
        }
        let logger = Logger(label: "herald", level: configuration.logLevel, format: configuration.logFormat)
        for old in configuration.deprecatedSettings {
            logger.warning(
                "deprecated setting", ["setting": old.name, "replacement": old.replacement, "effect": old.effect])
        }
        signal(SIGPIPE, SIG_IGN)
        // The port first: a taken one is one line and exit 1, before a data directory, key or token is made.
        do {
            configuration.listeningSocket = try HTTPServer.listen(
                host: configuration.host, port: configuration.port, reusePort: configuration.reusePort)
        } catch {
            fail("\(error)", status: 1)
        }
        let application: HeraldApplication
        do {
            try DataDirectory(path: configuration.dataDirectory).claimForThisProcess()
            application = try Composition.application(configuration, logger: logger)
            if application.adminTokenGenerated {
                say(
                    "admin token (generated; kept in \(configuration.dataDirectory)/admin-token): "
                        + application.adminToken)
            }
            try application.bind()
        } catch {
            fail("cannot start: \(error)", status: 1)
        }
        // SIGTERM or SIGINT: the API stops taking requests and finishes those in flight, the scheduler stops, the
        // delivery engine lets sends in flight answer and hands unfinished claims back; then exit 0. Watched for
        // before Herald says it listens, so that a stop sent as soon as it does is not lost.
        let group = WorkerGroup(application.workers, logger: logger, signals: [SIGTERM, SIGINT])
        let shownHost = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        say("herald listening on http://\(shownHost):\(application.port)")
        logger.notice("started", ["version": BuildInfo.version, "port": String(application.port)])
        if application.publicBaseURL.hasPrefix("http://") {
            // Campaign and news media uploaded here are linked at this URL, and iOS's notification service
            // extension downloads only over https: those pushes would arrive without their picture.
            logger.warning(
                "media links are http, which iOS will not attach to notifications: set --public-url to the https URL "
                    + "phones reach Herald at", ["public_url": application.publicBaseURL])
        }
        do {
            try await group.run()
        } catch {
            logger.error("stopped on a failure", ["error": "\(error)"])
            exit(1)
        }
        logger.notice("stopped")
        exit(0)
    }

    /// `herald backup --to FILE` and `herald restore --from FILE`, on the database serve would open.
    static func copyDatabase(_ command: String, _ arguments: [String]) -> Never {
        let fileFlag = command == "backup" ? "to" : "from"
        let (values, serveArguments) = take([fileFlag], from: arguments)
        guard let file = values[fileFlag], !file.isEmpty else {
            fail("herald \(command) needs --\(fileFlag) FILE", status: 2)
        }
        let configuration = readConfiguration(serveArguments)
        let url = configuration.databaseURL
        guard url.hasPrefix("sqlite:") else {
            fail("herald \(command) copies SQLite databases; for \(url) use pg_dump / pg_restore", status: 2)
        }
        let path = String(url.dropFirst("sqlite:".count))
        do {
            if command == "backup" {
                guard FileManager.default.fileExists(atPath: path) else {
                    fail("no database at \(path) (--data-dir / --database name the one to back up)", status: 1)
                }
                let pages = try SQLiteBackup.backup(from: path, to: file)
                say("backed up \(path) to \(file) (\(pages) pages)")
            } else {
                try DataDirectory(path: configuration.dataDirectory).claimForThisProcess()
                let pages = try SQLiteBackup.restore(from: file, to: path)
                say("restored \(file) into \(path) (\(pages) pages); start herald serve on it")
            }
        } catch {
            fail("\(error)", status: 1)
        }
        exit(0)
    }

    /// `herald admin SUBCOMMAND [flags]`: the admin API's route for it, called in this process on the database serve
    /// would open (its answer printed as JSON; a refusal printed to standard error, exit 1).
    static func admin(_ subcommand: String, _ arguments: [String]) -> Never {
        guard let flags = adminCommands.first(where: { $0.name == subcommand })?.flags else {
            let names = adminCommands.map(\.name)
            let hint = didYouMean(subcommand, among: names)
            fail("unknown admin command \(subcommand)\(hint); one of \(names.joined(separator: ", "))", status: 2)
        }
        let (values, serveArguments) = take(flags, from: arguments)
        func required(_ flag: String) -> String {
            guard let value = values[flag], !value.isEmpty else {
                fail("herald admin \(subcommand) needs --\(flag)", status: 2)
            }
            return value
        }
        func file(_ flag: String) -> String {
            let path = required(flag)
            guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)", status: 1) }
            return String(decoding: data, as: UTF8.self)
        }
        func businessPath(_ suffix: String) -> String {
            let id = required("business")
            guard let number = Int64(id), number > 0 else { fail("--business must be a business id", status: 2) }
            return "/api/admin/businesses/\(number)" + suffix
        }
        let request: (method: HTTPMethod, path: String, body: JSON?)
        switch subcommand {
        case "create-business":
            request = (.post, "/api/admin/businesses", .object([("name", .string(required("name")))]))
        case "set-apns":
            var body: [(key: String, value: JSON)] = [
                ("key_p8", .string(file("p8"))), ("key_id", .string(required("key-id"))),
                ("team_id", .string(required("team-id"))), ("topic", .string(required("topic"))),
            ]
            if let environment = values["environment"] { body.append(("environment", .string(environment))) }
            request = (.put, businessPath("/apns"), .object(body))
        case "set-fcm":
            request = (.put, businessPath("/fcm"), .object([("service_account", .string(file("service-account")))]))
        default:
            request = (.get, "/api/admin/businesses?limit=500", nil)
        }
        var configuration = readConfiguration(serveArguments)
        configuration.delivery.enabled = false
        let logger = Logger(label: "herald", level: .warning, format: configuration.logFormat)
        let response: HTTPResponse
        do {
            let application = try Composition.application(configuration, logger: logger)
            response = try application.responder.respond(
                to: HTTPRequest(
                    method: request.method, target: request.path,
                    headers: [
                        ("authorization", "Bearer " + application.adminToken),
                        ("content-type", "application/json"),
                    ],
                    body: request.body?.encoded ?? [], id: "herald-admin"))
        } catch {
            fail("\(error)", status: 1)
        }
        guard case .bytes(let body) = response.body else { fail("unexpected answer", status: 1) }
        let text = String(decoding: body, as: UTF8.self)
        guard (200..<300).contains(response.status.code) else {
            fail("refused (\(response.status.code)): \(text)", status: 1)
        }
        say(text)
        exit(0)
    }

    /// The values of `flags` (`--flag value` or `--flag=value`) in `arguments`, and the other arguments (serve's).
    static func take(_ flags: [String], from arguments: [String]) -> (values: [String: String], rest: [String]) {
        var values: [String: String] = [:]
        var rest: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = argument.hasPrefix("--") ? String(argument.dropFirst(2).prefix { $0 != "=" }) : ""
            if flags.contains(name) {
                if argument.contains("=") {
                    values[name] = String(argument.drop { $0 != "=" }.dropFirst())
                } else if index + 1 < arguments.count {
                    values[name] = arguments[index + 1]
                    index += 1
                }
            } else {
                rest.append(argument)
            }
            index += 1
        }
        return (values, rest)
    }

    /// The configuration `arguments` and the environment give, as serve reads it; exit 2 on a bad flag.
    static func readConfiguration(_ arguments: [String]) -> HeraldConfiguration {
        do {
            return try HeraldConfiguration.read(arguments: arguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            fail("\(error)", status: 2)
        }
    }

    /// ` (did you mean NAME?)` for the name within two edits of `word`, else empty.
    static func didYouMean(_ word: String, among names: [String]) -> String {
        let distance = { (name: String) in HeraldConfiguration.editDistance(word, name) }
        guard let near = names.min(by: { distance($0) < distance($1) }), distance(near) <= 2 else { return "" }
        return " (did you mean \(near)?)"
    }

    /// Writes `herald: <message>` to standard error and exits with `status`.
    static func fail(_ message: String, status: Int32) -> Never {
        FileHandle.standardError.write(Data("herald: \(message)\n".utf8))
        exit(status)
    }

    /// Writes a line to standard output at once (it may be a pipe).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
