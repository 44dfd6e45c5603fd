import Foundation
import HeraldModel
import Testing

@testable import HeraldPushContent
@testable import HeraldSDK

/// A body served from memory in chunks, recording how it was read.
final class MemoryBody: MediaBody, @unchecked Sendable {
    private let chunks: LockedValue<[[UInt8]]>
    let cancelled = LockedValue(false)
    /// Never ends (a slow server) when true.
    let hangs: Bool

    init(_ bytes: [UInt8], chunkSize: Int = 4096, hangs: Bool = false) {
        chunks = LockedValue(
            stride(from: 0, to: bytes.count, by: chunkSize).map { Array(bytes[$0..<min($0 + chunkSize, bytes.count)]) })
        self.hangs = hangs
    }

    func nextChunk() async throws(AttachmentFailure) -> [UInt8]? {
        if cancelled.current { throw AttachmentFailure(code: .timedOut, detail: "cancelled") }
        if let chunk = chunks.update({ $0.isEmpty ? nil : $0.removeFirst() }) { return chunk }
        if hangs {
            while !cancelled.current {
                do {
                    try await Task.sleep(for: .milliseconds(5))
                } catch {
                    break
                }
            }
            throw AttachmentFailure(code: .timedOut, detail: "cancelled")
        }
        return nil
    }

    func cancel() { cancelled.update { $0 = true } }
}

/// A fetcher serving canned responses by URL.
final class CannedFetcher: MediaFetcher, @unchecked Sendable {
    let responses: [String: @Sendable () -> Result<MediaResponse, AttachmentFailure>]
    let fetched = LockedValue<[String]>([])

    init(_ responses: [String: @Sendable () -> Result<MediaResponse, AttachmentFailure>]) { self.responses = responses }

    func fetch(_ url: String, maximumBytes: Int, timeout: Duration) async throws(AttachmentFailure) -> MediaResponse {
        fetched.update { $0.append(url) }
        guard let response = responses[url] else { throw AttachmentFailure(code: .network, detail: "no such URL") }
        return try response().get()
    }
}

/// The notification service extension's logic: the plan, the download's limits and checks, and the fallback.
@Suite struct RichPushTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 5000)
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 1, count: 3000)
    static let gif: [UInt8] = Array("GIF89a".utf8) + [UInt8](repeating: 2, count: 100)

    static func payload(_ url: String, _ type: String) -> JSON {
        [
            "aps": ["alert": ["title": "t", "body": "b"], "mutable-content": 1],
            "ab": ["att": ["url": .string(url), "type": .string(type)]],
        ]
    }

    static func ok(_ bytes: [UInt8], contentType: String? = "image/png", length: Int? = nil, hangs: Bool = false)
        -> @Sendable () -> Result<MediaResponse, AttachmentFailure>
    {
        {
            .success(
                MediaResponse(
                    status: 200, contentType: contentType, expectedLength: length, body: MemoryBody(bytes, hangs: hangs)
                ))
        }
    }

    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("herald-nse-\(UUID().uuidString)")
    }

    static func files(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    /// Sleeps "for ever" (until cancelled): the deadline never comes.
    static let never: @Sendable (Duration) async throws -> Void = { _ in try await Task.sleep(for: .seconds(3600)) }
    /// The deadline comes at once.
    static let atOnce: @Sendable (Duration) async throws -> Void = { _ in }

    func attach(
        _ payload: JSON, _ fetcher: CannedFetcher, options: RichPushOptions = RichPushOptions(),
        sleep: @escaping @Sendable (Duration) async throws -> Void = RichPushTests.never
    ) async -> (Result<PreparedAttachment, AttachmentFailure>, URL) {
        let directory = Self.directory()
        let result = await RichPushAttacher(fetcher: fetcher, directory: directory, options: options, sleep: sleep)
            .attach(payload: payload)
        return (result, directory)
    }

    @Test func savesAnImageWithItsSuffix() async throws {
        let fetcher = CannedFetcher(["https://cdn.example.com/b.png": Self.ok(Self.png, length: Self.png.count)])
        let (result, directory) = await attach(Self.payload("https://cdn.example.com/b.png", "png"), fetcher)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try result.get()
        #expect(file.fileURL.pathExtension == "png" && file.kind == .image && file.type == "png")
        #expect(file.byteCount == Self.png.count)
        #expect([UInt8](try Data(contentsOf: file.fileURL)) == Self.png)
        #expect(Self.files(in: directory) == [file.fileURL.lastPathComponent], "no partial file left")
    }

    @Test func anImageIsSavedAsWhatItIs() async throws {
        let fetcher = CannedFetcher([
            "https://x.example/a": Self.ok(Self.png, contentType: nil), "https://x.example/b": Self.ok(Self.gif),
            "https://x.example/c": Self.ok(Self.jpeg, contentType: "application/octet-stream"),
        ])
        for (url, declared, saved) in [
            ("https://x.example/a", "jpg", "png"), ("https://x.example/b", "png", "gif"),
            ("https://x.example/c", "jpeg", "jpeg"),
        ] {
            let (result, directory) = await attach(Self.payload(url, declared), fetcher)
            #expect(try result.get().fileURL.pathExtension == saved, "\(url)")
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func audioAndVideoKeepTheirType() async throws {
        let bytes = [UInt8](repeating: 0, count: 10_000)
        let fetcher = CannedFetcher([
            "https://x.example/a": Self.ok(bytes, contentType: "audio/mpeg"),
            "https://x.example/v": Self.ok(bytes, contentType: "video/mp4"),
        ])
        for (url, type, kind) in [
            ("https://x.example/a", "mp3", MessageMediaType.audio), ("https://x.example/v", "MP4", .video),
        ] {
            let (result, directory) = await attach(Self.payload(url, type), fetcher)
            let file = try result.get()
            #expect(file.kind == kind && file.fileURL.pathExtension == type.lowercased())
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// A payload, the fetcher's answer, and the failure expected; no file must be left.
    static let failures:
        [(String, JSON, (@Sendable () -> Result<MediaResponse, AttachmentFailure>)?, AttachmentFailure.Code)] = [
            ("no ab", ["aps": ["alert": "x"]], nil, .noAttachment),
            ("no type", ["ab": ["att": ["url": "https://x.example/f"]]], nil, .noAttachment),
            ("http", payload("http://x.example/f", "png"), nil, .insecureURL),
            ("ftp", payload("ftp://x.example/f", "png"), nil, .insecureURL),
            ("userinfo", payload("https://user@x.example/f", "png"), nil, .insecureURL),
            ("no host", payload("https:///f", "png"), nil, .insecureURL),
            ("space", payload("https://x.example/a b", "png"), nil, .insecureURL),
            ("webp", payload("https://x.example/f", "webp"), nil, .unsupportedType),
            ("exe", payload("https://x.example/f", "exe"), nil, .unsupportedType),
            (
                "404", payload("https://x.example/f", "png"),
                { .success(MediaResponse(status: 404, contentType: nil, expectedLength: nil, body: MemoryBody([]))) },
                .httpStatus
            ),
            (
                "html", payload("https://x.example/f", "png"),
                ok(Array("<html>".utf8), contentType: "text/html; charset=utf-8"), .wrongContent
            ),
            (
                "html unlabelled", payload("https://x.example/f", "mp4"),
                ok(Array("  <!DOCTYPE html>".utf8), contentType: nil), .wrongContent
            ),
            (
                "not an image", payload("https://x.example/f", "jpg"),
                ok([UInt8](repeating: 0x52, count: 64), contentType: nil), .wrongContent
            ),
            ("empty", payload("https://x.example/f", "mp3"), ok([], contentType: nil), .wrongContent),
            ("declared too large", payload("https://x.example/f", "png"), ok(png, length: 10_000_001), .tooLarge),
            (
                "audio too large", payload("https://x.example/f", "m4a"),
                ok([UInt8](repeating: 0, count: 5_000_001), contentType: nil), .tooLarge
            ),
            (
                "network", payload("https://x.example/f", "png"), { .failure(AttachmentFailure(code: .network)) },
                .network
            ),
        ]

    @Test(arguments: 0..<failures.count) func failuresFallBackAndLeaveNothing(_ index: Int) async {
        let (name, payload, response, code) = Self.failures[index]
        var responses: [String: @Sendable () -> Result<MediaResponse, AttachmentFailure>] = [:]
        if let response { responses["https://x.example/f"] = response }
        let (result, directory) = await attach(payload, CannedFetcher(responses))
        defer { try? FileManager.default.removeItem(at: directory) }
        guard case .failure(let failure) = result else {
            Issue.record("\(name): attached")
            return
        }
        #expect(failure.code == code, "\(name): \(failure)")
        #expect(Self.files(in: directory).isEmpty, "\(name): left \(Self.files(in: directory))")
    }

    @Test func aBodyLargerThanItSaidIsCutAtTheLimit() async {
        let big = Self.png + [UInt8](repeating: 0, count: 10_000_000)
        let body = MemoryBody(big, chunkSize: 1 << 20)
        let fetcher = CannedFetcher([
            "https://x.example/f": {
                .success(MediaResponse(status: 200, contentType: "image/png", expectedLength: 100, body: body))
            }
        ])
        let (result, directory) = await attach(Self.payload("https://x.example/f", "png"), fetcher)
        defer { try? FileManager.default.removeItem(at: directory) }
        guard case .failure(let failure) = result else {
            Issue.record("attached 10 MB + 5 kB")
            return
        }
        #expect(failure.code == .tooLarge)
        #expect(body.cancelled.current, "the download was stopped")
        #expect(Self.files(in: directory).isEmpty)
    }

    @Test func limitsAreApples() {
        let options = RichPushOptions()
        #expect(options.maximumImageBytes == 10_000_000 && options.maximumAudioBytes == 5_000_000)
        #expect(options.maximumVideoBytes == 50_000_000)
        #expect(options.chunkBytes * 64 <= 24 << 20, "well inside the extension's memory")
        let video = AttachmentPlan.make(payload: Self.payload("https://x.example/v", ".MP4"))
        #expect((try? video.get())?.maximumBytes == 50_000_000)
        #expect((try? video.get())?.type == "mp4")
    }

    @Test func slowMediaTimesOutAndLeavesNothing() async {
        let body = MemoryBody(Self.png, chunkSize: 100, hangs: true)
        let fetcher = CannedFetcher([
            "https://x.example/slow": {
                .success(MediaResponse(status: 200, contentType: "image/png", expectedLength: nil, body: body))
            }
        ])
        let (result, directory) = await attach(
            Self.payload("https://x.example/slow", "png"), fetcher, sleep: Self.atOnce)
        defer { try? FileManager.default.removeItem(at: directory) }
        guard case .failure(let failure) = result else {
            Issue.record("a download that never ends attached")
            return
        }
        #expect(failure.code == .timedOut)
        #expect(body.cancelled.current)
        #expect(Self.files(in: directory).isEmpty)
    }

    @Test func cancellingTheTaskFallsBack() async {
        let body = MemoryBody(Self.png, hangs: true)
        let fetcher = CannedFetcher([
            "https://x.example/slow": {
                .success(MediaResponse(status: 200, contentType: nil, expectedLength: nil, body: body))
            }
        ])
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let task = Task {
            await RichPushAttacher(fetcher: fetcher, directory: directory, sleep: Self.never)
                .attach(payload: Self.payload("https://x.example/slow", "png"))
        }
        while fetcher.fetched.current.isEmpty { await Task.yield() }
        task.cancel()
        guard case .failure = await task.value else {
            Issue.record("attached after cancellation")
            return
        }
        #expect(Self.files(in: directory).isEmpty)
    }

    @Test func plainHTTPOnlyForNamedHosts() {
        var options = RichPushOptions()
        options.plainHTTPHosts = ["127.0.0.1"]
        #expect(
            (try? AttachmentPlan.make(payload: Self.payload("http://127.0.0.1:8080/a.png", "png"), options: options)
                .get()) != nil)
        #expect(
            (try? AttachmentPlan.make(payload: Self.payload("http://localhost:8080/a.png", "png"), options: options)
                .get()) == nil)
    }
}
