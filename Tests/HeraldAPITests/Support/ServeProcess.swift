import Foundation
import HeraldTesting

/// `herald serve` in a process of its own, as an operator starts it: its memory is its own, whatever other tests do
/// meanwhile, and what it logs (standard error) is kept in a file a test can read.
final class ServeProcess {
    let process: ChildProcess
    let directory: TemporaryDirectory
    let port: Int
    static let adminToken = "serve-test-admin-token"

    /// Starts `herald serve --port 0 --data-dir … arguments…` with `environment` added to this process's, and waits
    /// until it listens.
    init(_ arguments: [String] = [], environment extra: [String: String] = ["HERALD_LOG_LEVEL": "warning"]) throws {
        directory = try TemporaryDirectory()
        let output = directory.file("stdout")
        var environment = ProcessInfo.processInfo.environment
        environment["HERALD_ADMIN_TOKEN"] = Self.adminToken
        environment["HERALD_PASSWORD_COST"] = "1024"
        environment.merge(extra) { $1 }
        process = try ChildProcess(
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("herald")
                .path,
            ["serve", "--port", "0", "--data-dir", directory.file("data")] + arguments, environment: environment,
            output: .file(output), errors: .file(directory.file("stderr")))
        let process = process
        var found: Int?
        // A child process's start: no in-process event to wait on, so its output is looked at until it says.
        Poll.until(timeout: .seconds(60), every: .milliseconds(20)) {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on http://127.0.0.1:") {
                found = Int(text[range.upperBound...].prefix { $0.isNumber })
            }
            return found != nil || !process.isRunning
        }
        guard let found else {
            let log = (try? String(contentsOfFile: directory.file("stderr"), encoding: .utf8)) ?? ""
            throw TestHTTPClient.Failure(description: "herald serve did not start: \(log)")
        }
        port = found
    }

    deinit {
        process.terminate()
        process.wait()
    }

    /// What it has logged so far (standard error).
    var log: String { (try? String(contentsOfFile: directory.file("stderr"), encoding: .utf8)) ?? "" }

    /// An admin API call.
    func admin(_ method: String, _ path: String, json: String) throws -> TestHTTPClient.Response {
        try TestHTTPClient(port: port).request(
            method, path, headers: [("Authorization", "Bearer \(Self.adminToken)")], json: json)
    }

    /// Creates a business through the admin API.
    func createBusiness(name: String = "Burger Co") throws -> LiveHerald.BusinessKeys {
        try LiveHerald.BusinessKeys(created: admin("POST", "/api/admin/businesses", json: #"{"name":"\#(name)"}"#))
    }

    /// The process's peak resident memory so far (VmHWM), in KiB.
    func peakKiB() -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
