import Foundation
import HeraldTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ChildProcess`, which the tests start their children with instead of Foundation's `Process` (whose `run()`
/// crashes a test process now and then on Linux: see its documentation).
@Suite struct ChildProcessTests {
    @Test func itsStreamsAndExitStatusReachTheParent() throws {
        let child = try ChildProcess("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"], output: .pipe, errors: .pipe)
        #expect(String(decoding: child.output!.readDataToEndOfFile(), as: UTF8.self) == "out\n")
        #expect(String(decoding: child.errors!.readDataToEndOfFile(), as: UTF8.self) == "err\n")
        #expect(child.wait() == 3)
        #expect(!child.isRunning)
    }

    @Test func standardErrorCanJoinStandardOutput() throws {
        let child = try ChildProcess("/bin/sh", ["-c", "echo out; echo err >&2"], output: .pipe, errors: .output)
        #expect(String(decoding: child.output!.readDataToEndOfFile(), as: UTF8.self) == "out\nerr\n")
        #expect(child.wait() == 0)
    }

    @Test func standardInputIsWrittenAndTheEnvironmentIsTheOneGiven() throws {
        let child = try ChildProcess(
            "/bin/sh", ["-c", "read line; echo \"$line $GREETING $HOME\""], environment: ["GREETING": "hi"],
            input: .pipe, output: .pipe)
        try child.input!.write(contentsOf: Data("hello\n".utf8))
        try child.input!.close()
        #expect(String(decoding: child.output!.readDataToEndOfFile(), as: UTF8.self) == "hello hi \n")
        #expect(child.wait() == 0)
    }

    @Test func aFileReceivesItsOutput() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/out"
        let child = try ChildProcess("/bin/sh", ["-c", "echo written"], output: .file(file))
        #expect(child.wait() == 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "written\n")
    }

    /// What Foundation's `Process` walks /proc/self/fd for: a child holding another child's pipe open would keep
    /// that pipe's reader waiting for an end that never comes.
    @Test func theChildInheritsNoDescriptorButItsThree() throws {
        var leaked: [Int32] = [-1, -1]
        #expect(pipe(&leaked) == 0)  // without O_CLOEXEC
        defer { for descriptor in leaked { close(descriptor) } }
        let child = try ChildProcess(
            "/bin/sh", ["-c", "for f in /proc/self/fd/*; do echo ${f##*/}; done"], output: .pipe)
        let open = String(decoding: child.output!.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        #expect(child.wait() == 0)
        #expect(!open.contains("\(leaked[0])") && !open.contains("\(leaked[1])"), "\(open)")
        #expect(open.contains("0") && open.contains("1") && open.contains("2"), "\(open)")
    }

    /// A test thread may block SIGTERM (a server under test waits for it); its children must not inherit that.
    @Test func aChildStartedWhereSIGTERMIsBlockedStillEndsOnIt() throws {
        var blocked = sigset_t()
        var previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        let child = Result { try ChildProcess("/bin/sh", ["-c", "exec sleep 30"]) }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        let sleeper = try child.get()
        #expect(sleeper.isRunning)
        sleeper.terminate()
        #expect(sleeper.wait() == 128 + SIGTERM)
    }

    @Test func aMissingProgramIsAnError() {
        #expect(throws: ChildProcess.Failure.self) { try ChildProcess("/nonexistent/program") }
    }

    /// Foundation's `Process` is started nowhere in the tests or in HeraldTesting: each start of one may crash the
    /// whole test process.
    @Test func noTestStartsFoundationsProcess() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let pattern = try Regex(#"\bProcess\(\)|: Process\b|\bPipe\(\)"#)
        var found: [String] = []
        for folder in ["Sources", "Tests"] {
            let base = root.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".swift") && !file.hasSuffix("ChildProcessTests.swift") {
                let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
                if text.contains(pattern) { found.append(file) }
            }
        }
        #expect(found.isEmpty, "start children with HeraldTesting's ChildProcess: \(found)")
    }
}
