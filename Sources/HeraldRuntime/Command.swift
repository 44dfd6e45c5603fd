import Dispatch
import Foundation
import HeraldLifecycle
import HeraldObservability
import HeraldServer

/// The `herald` command line.
public enum Command {
    static let usage = """
        usage: herald serve [--host H] [--port P] [--data-dir DIR] [--database URL] [--log-level LEVEL] …
               herald version

        serve   run the HTTP API, delivery workers and scheduler in one process.
                Every flag can also be set in the environment (HERALD_HOST, HERALD_PORT, HERALD_DATA_DIR,
                HERALD_DATABASE, HERALD_ADMIN_TOKEN, HERALD_APNS_URL, HERALD_FCM_URL, HERALD_CA_FILE, …);
                see the README for the full list.
        """

    /// Runs the command in `arguments` and exits.
    public static func main(arguments: [String]) async -> Never {
        guard let command = arguments.first else {
            FileHandle.standardError.write(Data((usage + "\n").utf8))
            exit(2)
        }
        switch command {
        case "serve":
            await serve(Array(arguments.dropFirst()))
        case "version", "--version":
            print("herald 0.1.0")
            exit(0)
        case "help", "--help", "-h":
            print(usage)
            exit(0)
        default:
            FileHandle.standardError.write(Data("herald: unknown command \(command)\n\(usage)\n".utf8))
            exit(2)
        }
    }

    static func serve(_ arguments: [String]) async -> Never {
        let environment = ProcessInfo.processInfo.environment
        let configuration: HeraldConfiguration
        do {
            configuration = try HeraldConfiguration.read(arguments: arguments, environment: environment)
        } catch {
            FileHandle.standardError.write(Data("herald: \(error)\n".utf8))
            exit(2)
        }
        let logger = Logger(label: "herald", level: configuration.logLevel)
        signal(SIGPIPE, SIG_IGN)
        let application: HeraldApplication
        do {
            application = try Composition.application(configuration, logger: logger)
            // Shown before starting: if the start fails (the port taken), the next run finds the token already
            // kept and would never show it.
            if application.adminTokenGenerated {
                say(
                    "admin token (generated; kept in \(configuration.dataDirectory)/admin-token): "
                        + application.adminToken)
            }
            try application.bind()
        } catch {
            logger.error("cannot start", ["error": "\(error)"])
            exit(1)
        }
        let shownHost = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        say("herald listening on http://\(shownHost):\(application.port)")
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

    /// Writes a line to standard output at once (it may be a pipe).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
