import Foundation
import HeraldCrypto
import HeraldFuzzTargets
import HeraldModel
import HeraldObservability
import HeraldAPI
import HeraldTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `herald serve` as a process, for what only the command does.
@Suite("herald serve", .tags(.endToEnd))
struct ServeCommandTests {
    /// The `herald` binary built next to this test bundle.
    static var heraldBinary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("herald").path
    }

    /// Runs `herald arguments…` to its end: its exit status, standard output and standard error.
    static func run(
        _ arguments: [String], environment extra: [String: String] = [:]
    ) throws -> (status: Int32, out: String, err: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["HERALD_ADMIN_TOKEN"] = nil
        environment["HERALD_PASSWORD_COST"] = "1024"
        for (name, value) in extra { environment[name] = value }
        let process = try ChildProcess(
            heraldBinary, arguments, environment: environment, output: .pipe, errors: .pipe)
        let errorText = Mutex("")
        let read = DispatchSemaphore(value: 0)
        let reader = Thread {
            let text = String(decoding: process.errors!.readDataToEndOfFile(), as: UTF8.self)
            errorText.withLock { $0 = text }
            read.signal()
        }
        reader.start()
        let printed = String(decoding: process.output!.readDataToEndOfFile(), as: UTF8.self)
        let status = process.wait()
        read.wait()
        return (status, printed, errorText.withLock { $0 })
    }

    @Test("a taken port is one line naming host:port, exit 1, before a data dir, key or admin token is made")
    func aTakenPortFailsAtOnceWithOneLine() throws {
        let taken = try #require(LoopbackListener(backlog: 1), "cannot listen on the loopback")
        defer { taken.close() }
        let directory = try TemporaryDirectory()
        let dataDirectory = directory.path + "/data"
        let result = try Self.run(["serve", "--port", String(taken.port), "--data-dir", dataDirectory])

        #expect(result.status == 1)
        #expect(result.out.isEmpty, "nothing printed, no admin token: \(result.out)")
        let lines = result.err.split(separator: "\n")
        #expect(lines.count == 1, "\(result.err)")
        #expect(result.err.contains("127.0.0.1:\(taken.port)"))
        #expect(result.err.contains("address already in use"))
        #expect(!FileManager.default.fileExists(atPath: dataDirectory))
    }

    @Test("--help lists every flag with its environment variable; `herald help serve` says the same")
    func helpListsEveryFlag() throws {
        let result = try Self.run(["serve", "--help"])
        #expect(result.status == 0)
        for option in HeraldConfiguration.options {
            if let flag = option.flag { #expect(result.out.contains("--" + flag), "\(flag)") }
            #expect(result.out.contains(option.environment), "\(option.environment)")
        }
        #expect(try Self.run(["help", "serve"]).out == result.out)
        #expect(try Self.run(["help"]).out.contains("backup --to FILE"))
    }

    /// Starts `herald serve arguments…`, waits until it is listening, stops it with SIGTERM: what it wrote.
    static func startAndStop(_ arguments: [String]) throws -> (out: String, err: String) {
        let directory = try TemporaryDirectory()
        var environment = ProcessInfo.processInfo.environment
        environment["HERALD_PASSWORD_COST"] = "1024"
        let process = try ChildProcess(
            heraldBinary, ["serve", "--port", "0", "--data-dir", directory.path + "/data"] + arguments,
            environment: environment, output: .pipe, errors: .pipe)
        let (output, errors) = (process.output!, process.errors!)
        let printed = Mutex((out: "", err: ""))
        output.readabilityHandler = { handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            printed.withLock { $0.out += text }
        }
        errors.readabilityHandler = { handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            printed.withLock { $0.err += text }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning, !printed.withLock({ $0.out.contains("listening on") }), ContinuousClock.now < deadline
        {
            usleep(10_000)  // a child process's start: no in-process event to wait on
        }
        process.terminate()
        let stopBy = ContinuousClock.now + .seconds(30)
        while process.isRunning, ContinuousClock.now < stopBy { usleep(10_000) }
        if process.isRunning {
            Issue.record("herald serve did not stop within 30 s of SIGTERM")
            process.signal(SIGKILL)
        }
        process.wait()
        output.readabilityHandler = nil
        errors.readabilityHandler = nil
        return printed.withLock { $0 }
    }

    @Test("media served over http (no https --public-url) is warned of at start: iOS attaches only https media")
    func httpMediaIsWarnedOf() throws {
        let plain = try Self.startAndStop([])
        #expect(plain.out.contains("listening on"), "\(plain)")
        #expect(plain.err.contains("media links are http"), "\(plain.err)")
        let secure = try Self.startAndStop(["--public-url", "https://push.example.com"])
        #expect(secure.out.contains("listening on"), "\(secure)")
        #expect(!secure.err.contains("media links are http"), "\(secure.err)")
        #expect(!secure.err.contains("deprecated setting"), "\(secure.err)")
    }

    @Test("a replaced flag still starts Herald, with a warning through the logger saying what its value became")
    func aDeprecatedFlagIsWarnedOf() throws {
        let old = try Self.startAndStop(["--auth-rate-per-account", "5", "--log-format", "json"])
        #expect(old.out.contains("listening on"), "\(old)")
        let line = try #require(
            old.err.split(separator: "\n").first { $0.contains("deprecated setting") }, "\(old.err)")
        let warning = try JSON.parse(Array(line.utf8))
        #expect(warning["level"] == "warning")
        #expect(warning["setting"] == "--auth-rate-per-account / HERALD_AUTH_RATE_PER_ACCOUNT", "\(line)")
        #expect(warning["effect"]?.stringValue?.hasPrefix("taken as --auth-failures-per-account 5") == true)
    }

    @Test("a near miss gets a suggestion; an unknown command too")
    func nearMissesAreSuggested() throws {
        let flag = try Self.run(["serve", "--prot", "9000"])
        #expect(flag.status == 2)
        #expect(flag.err.contains("unknown flag --prot (did you mean --port?)"), "\(flag.err)")
        let command = try Self.run(["serv"])
        #expect(command.status == 2)
        #expect(command.err.contains("did you mean serve?"))
    }

    @Test("an empty sqlite: path and an unusable database name the path and the reason")
    func startUpErrorsNameThePath() throws {
        let empty = try Self.run(["serve", "--port", "0", "--database", "sqlite:"])
        #expect(empty.status == 2)
        #expect(empty.err.contains("sqlite: names no file"), "\(empty.err)")
        let directory = try TemporaryDirectory()
        let missing = directory.path + "/nowhere/herald.db"
        let result = try Self.run([
            "serve", "--port", "0", "--data-dir", directory.path + "/data", "--database", "sqlite:" + missing,
        ])
        #expect(result.status == 1)
        #expect(result.err.contains("cannot open database sqlite:\(missing)"), "\(result.err)")
        #expect(result.err.contains("does not exist"), "\(result.err)")
    }

    @Test func versionSaysWhichBuild() throws {
        let result = try Self.run(["version"])
        #expect(result.status == 0)
        #expect(result.out.hasPrefix("herald \(BuildInfo.version) (swift "))
        // The binary runs on jemalloc (linked in; its mallctl answers only when it is the allocator in use).
        #expect(result.out.contains("\nallocator: jemalloc 5."), "\(result.out)")
    }

    @Test("herald backup copies a database that herald restore brings back")
    func backupAndRestoreThroughTheCommand() throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let herald = try LiveHerald { $0.dataDirectory = data }
        _ = try herald.createBusiness(name: "Burger Co")
        let backup = directory.path + "/herald.backup"
        // While it serves.
        let taken = try Self.run(["backup", "--to", backup, "--data-dir", data])
        #expect(taken.status == 0, "\(taken.err)")
        // Owner-only, as the database is, whatever the umask (this process's lets others read new files).
        let mode = try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? Int
        #expect(mode == 0o600, "the backup is \(String(mode ?? 0, radix: 8))")
        #expect(try Self.run(["backup", "--to", backup, "--data-dir", data]).err.contains("already exists"))
        _ = try herald.createBusiness(name: "Taco Co")
        herald.stop()
        let restored = try Self.run(["restore", "--from", backup, "--data-dir", data])
        #expect(restored.status == 0, "\(restored.err)")
        let again = try LiveHerald { $0.dataDirectory = data }
        defer { again.stop() }
        #expect(try again.admin("GET", "/api/admin/businesses/1").status == 200)
        #expect(try again.admin("GET", "/api/admin/businesses/2").status == 404)
        let notHerald = directory.path + "/other.db"
        _ = FileManager.default.createFile(atPath: notHerald, contents: Data())
        #expect(
            try Self.run(["restore", "--from", notHerald, "--data-dir", data]).err.contains("not a Herald database"))
    }

    @Test("herald admin creates a business and sets its APNs key on a data dir, by the admin API's rules")
    func adminCommandsWorkOnTheDataDirectory() throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let p8 = directory.path + "/AuthKey_KEY1234567.p8"
        try P256PrivateKey.generate().pemRepresentation.write(toFile: p8, atomically: true, encoding: .utf8)

        let created = try Self.run(["admin", "create-business", "--name", "Burger Co", "--data-dir", data])
        #expect(created.status == 0, "\(created.err)")
        let business = try JSON.parse(Array(created.out.utf8))
        #expect(business["id"]?.int64Value == 1)
        #expect(business["name"]?.stringValue == "Burger Co")
        #expect(business["secret"]?.stringValue?.isEmpty == false, "the secret is shown once, at creation")

        let setAPNs = [
            "admin", "set-apns", "--business", "1", "--p8", p8, "--key-id", "KEY1234567", "--team-id",
            "TEAM123456", "--topic", "com.example.loyalty", "--environment=sandbox", "--data-dir", data,
        ]
        let set = try Self.run(setAPNs)
        #expect(set.status == 0, "\(set.err)")
        #expect(!set.out.contains("PRIVATE KEY"), "the key is never printed back")

        // Refused as the API refuses, with its JSON errors, exit 1; usage mistakes exit 2.
        let refused = try Self.run(setAPNs.map { $0 == "KEY1234567" ? "short" : $0 })
        #expect(refused.status == 1)
        #expect(refused.err.contains("\"key_id\""), "\(refused.err)")
        let unknown = try Self.run(setAPNs.map { $0 == "1" ? "9" : $0 })
        #expect(unknown.status == 1)
        #expect(unknown.err.contains("404"), "\(unknown.err)")
        let missing = try Self.run(["admin", "create-business", "--data-dir", data])
        #expect(missing.status == 2)
        #expect(missing.err.contains("needs --name"))
        #expect(
            try Self.run(["admin", "create-busines", "--data-dir", data]).err.contains("did you mean create-business?"))

        // A server on that data dir serves them; the command works beside it.
        let herald = try LiveHerald { $0.dataDirectory = data }
        defer { herald.stop() }
        let shown = try JSON.parse(try herald.admin("GET", "/api/admin/businesses/1").body)
        #expect(shown["apns"]?["key_id"]?.stringValue == "KEY1234567")
        #expect(shown["apns"]?["environment"]?.stringValue == "sandbox")
        #expect(shown["apns"]?["status"]?.stringValue == "ok")
        let listed = try Self.run(["admin", "businesses", "--data-dir", data])
        #expect(listed.status == 0, "\(listed.err)")
        #expect(try JSON.parse(Array(listed.out.utf8))["data"]?.arrayValue?.count == 1)
    }
}
