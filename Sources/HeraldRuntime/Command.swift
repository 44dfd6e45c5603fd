import Dispatch
import Foundation
import HeraldHTTP
import HeraldLifecycle
import HeraldObservability
import HeraldSQLite
import HeraldServer

/// The `herald` command line.
public enum Command {
    static let usage = """
        usage: herald <command> [flags]

        commands:
          serve                      run the HTTP API, delivery workers and scheduler in one process
                                     (`herald serve --help` lists every flag, its environment variable and default)
          backup --to FILE           copy the database into FILE (a new file), consistent while Herald serves
          restore --from FILE        replace the database with a backup (stop Herald first)
          version                    the version and build
          help                       this text

        backup and restore read --data-dir / --database (or HERALD_DATA_DIR / HERALD_DATABASE) as serve does.
        """

    /// The commands, for "did you mean".
    static let commands = ["serve", "backup", "restore", "version", "help"]

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
        case "version", "--version":
            print(BuildInfo.versionLine)
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
            let near = commands.min { editDistance(command, $0) < editDistance(command, $1) }
            let hint = near.flatMap { editDistance(command, $0) <= 2 ? " (did you mean \($0)?)" : nil } ?? ""
            fail("unknown command \(command)\(hint)\n\(usage)", status: 2)
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
        let shownHost = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        say("herald listening on http://\(shownHost):\(application.port)")
        logger.notice("started", ["version": BuildInfo.version, "port": String(application.port)])
        // SIGTERM or SIGINT: the API stops taking requests and finishes those in flight, the scheduler stops, the
        // delivery engine lets sends in flight answer and hands unfinished claims back; then exit 0.
        let group = ServiceGroup(application.services, logger: logger, signals: [SIGTERM, SIGINT])
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
        var file: String?
        var serveArguments: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--\(fileFlag)" || argument.hasPrefix("--\(fileFlag)=") {
                if argument.contains("=") {
                    file = String(argument.drop { $0 != "=" }.dropFirst())
                } else if index + 1 < arguments.count {
                    file = arguments[index + 1]
                    index += 1
                }
            } else {
                serveArguments.append(argument)
            }
            index += 1
        }
        guard let file, !file.isEmpty else { fail("herald \(command) needs --\(fileFlag) FILE", status: 2) }
        let configuration: HeraldConfiguration
        do {
            configuration = try HeraldConfiguration.read(
                arguments: serveArguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            fail("\(error)", status: 2)
        }
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
                let pages = try SQLiteBackup.restore(from: file, to: path)
                say("restored \(file) into \(path) (\(pages) pages); start herald serve on it")
            }
        } catch {
            fail("\(error)", status: 1)
        }
        exit(0)
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        HeraldConfiguration.editDistance(a, b)
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
