import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A program a test starts beside it (`herald serve`, a stand-in, nginx, openssl), spawned with `posix_spawn`.
///
/// Foundation's `Process` is not used for this: on Linux its `run()` (swift-corelibs-foundation up to Swift 6.3)
/// scans `/proc/self/fd` copying 256 bytes of every entry's name, past the end of the short records `readdir`
/// returns, and the test process crashes (SIGSEGV) when the last record sits at the end of a mapped page: about one
/// run in twenty of a suite that starts children among a thousand open descriptors (swift-corelibs-foundation
/// #5472). Here the child closes every descriptor from 3 up itself (`posix_spawn_file_actions_addclosefrom_np`),
/// and nothing reads the directory.
///
/// ```swift
/// let child = try ChildProcess("/bin/sh", ["-c", "echo hello; exit 3"], output: .pipe)
/// let printed = child.output!.readDataToEndOfFile()  // "hello\n"
/// let status = child.wait()  // 3
/// ```
package final class ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    package enum Stream: Sendable {
        /// Where this process's goes.
        case inherited
        /// `/dev/null`.
        case null
        /// A pipe to this process: its end is ``ChildProcess/input``, ``ChildProcess/output`` or
        /// ``ChildProcess/errors``.
        case pipe
        /// A file, created or emptied.
        case file(String)
        /// Standard error only: where standard output goes.
        case output
    }

    /// Why the child could not be started.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// The child's process id.
    package let pid: pid_t
    /// This process's end of the child's standard input, when it is a ``Stream/pipe``.
    package let input: FileHandle?
    /// This process's end of the child's standard output, when it is a ``Stream/pipe``.
    package let output: FileHandle?
    /// This process's end of the child's standard error, when it is a ``Stream/pipe``.
    package let errors: FileHandle?
    /// What ``wait()`` returns, once the child has been reaped.
    private let status = Mutex<Int32?>(nil)

    /// Starts `executable` (a path) with `arguments`, and `environment` if given (this process's otherwise).
    package init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        input: Stream = .null, output: Stream = .inherited, errors: Stream = .inherited
    ) throws {
        guard let addCloseFrom = Self.addCloseFrom else {
            throw Failure(description: "posix_spawn_file_actions_addclosefrom_np is missing: glibc 2.34 or later")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var childEnds: [Int32] = []
        defer { for descriptor in childEnds { close(descriptor) } }
        var parentEnds: [Int32: FileHandle] = [:]
        for (descriptor, stream) in [(Int32(0), input), (1, output), (2, errors)] {
            switch stream {
            case .inherited: break
            case .null:
                posix_spawn_file_actions_addopen(
                    &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .output:
                posix_spawn_file_actions_adddup2(&actions, 1, descriptor)
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { throw Failure(description: "pipe: \(String(cString: strerror(errno)))") }
                // Close-on-exec at once, for whatever else this process may execute; the children started here close
                // every descriptor from 3 up anyway.
                for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                let (childEnd, parentEnd) = descriptor == 0 ? (ends[0], ends[1]) : (ends[1], ends[0])
                childEnds.append(childEnd)
                parentEnds[descriptor] = FileHandle(fileDescriptor: parentEnd, closeOnDealloc: true)
                posix_spawn_file_actions_adddup2(&actions, childEnd, descriptor)
            }
        }
        _ = addCloseFrom(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with no signal blocked or ignored, whatever this thread blocks or this process ignores.
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let environment = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for variable in environment ?? [] { free(variable) } }
        var pid: pid_t = 0
        let result =
            if let environment {
                posix_spawn(&pid, executable, &actions, &attributes, argv, environment)
            } else {
                posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
            }
        guard result == 0 else {
            throw Failure(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        self.input = parentEnds[0]
        self.output = parentEnds[1]
        self.errors = parentEnds[2]
    }

    /// Whether the child has not exited yet.
    package var isRunning: Bool { reap(blocking: false) == nil }

    /// Sends `signal` to the child, unless it has exited.
    package func signal(_ signal: Int32) {
        // Not once reaped: its pid may be another process's by then.
        if isRunning { kill(pid, signal) }
    }

    /// Asks the child to stop (SIGTERM).
    package func terminate() { signal(SIGTERM) }

    /// Waits for the child to exit: its exit status, or 128 plus the signal that ended it (as a shell says).
    @discardableResult
    package func wait() -> Int32 { reap(blocking: true)! }

    private func reap(blocking: Bool) -> Int32? {
        if let done = status.withLock({ $0 }) { return done }
        var raw: Int32 = 0
        while true {
            let result = waitpid(pid, &raw, blocking ? 0 : WNOHANG)
            if result == pid {
                // WIFSIGNALED and WEXITSTATUS are macros Swift does not import.
                let code = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
                status.withLock { $0 = code }
                return code
            }
            if result == 0 { return nil }
            if errno == EINTR { continue }
            // ECHILD: another thread reaped it, and is about to record how it ended.
            for _ in 0..<1000 {
                if let done = status.withLock({ $0 }) { return done }
                usleep(1000)
            }
            status.withLock { $0 = $0 ?? -1 }
            return -1
        }
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    /// glibc's (2.34), which its headers declare only for _GNU_SOURCE: looked up rather than declared.
    private static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: AddCloseFrom.self)
    }
}
