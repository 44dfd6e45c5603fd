import Foundation
import HeraldTesting
import Testing

/// `scripts/check-ios-sdk`, which `scripts/test` runs: it passes on the SDK as it is, refuses each planted example
/// under `Tests/IOSCheck` for the rule it breaks, and accepts the constructs that are fine on iOS 16.
@Suite struct IOSCheckTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The check's exit status and what it printed, run on the repository or on a planted example.
    static func check(_ example: String? = nil) throws -> (status: Int32, output: String) {
        let process = try ChildProcess(
            root.appendingPathComponent("scripts/check-ios-sdk").path,
            example.map { ["--root", root.appendingPathComponent("Tests/IOSCheck/\($0)").path] } ?? [], output: .pipe)
        let output = String(decoding: process.output!.readDataToEndOfFile(), as: UTF8.self)
        return (process.wait(), output)
    }

    @Test func theSDKPasses() throws {
        let result = try Self.check()
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func whatIsFineOnIOS16Passes() throws {
        let result = try Self.check("clean")
        #expect(result.status == 0, "\(result.output)")
    }

    @Test(arguments: [
        (
            "typed-throws",
            [
                "EventSender.swift:3: typed-throws", "EventSender.swift:6: typed-throws",
                "EventSender.swift:8: typed-throws", "Stored.swift:2: typed-throws",
            ]
        ),
        ("extension-unsafe", ["Badge.swift:1: extension-safe", "Badge.swift:5: extension-safe"]),
        ("app-only", ["Opener.swift:9: app-only"]),
        ("newer-api", ["Badge.swift:6: newer-api"]),
    ])
    func eachPlantedExampleFails(example: String, findings: [String]) throws {
        let result = try Self.check(example)
        #expect(result.status == 1)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == findings.count, "\(result.output)")
        for finding in findings {
            #expect(lines.contains { $0.contains(finding) }, "\(finding) not found in:\n\(result.output)")
        }
    }
}
