import Foundation
import HeraldModel
import Testing

@testable import HeraldPushContent
@testable import HeraldSDK

/// The real transport and fetcher against a local HTTP server (the project's own, port 0): the signature bytes
/// survive URLSession and are verified by OpenSSL's HMAC on the server's side, and media streams to disk within its
/// limits. The full end-to-end tests run against a live `herald serve`.
@Suite(.serialized) struct URLSessionEndToEndTests {
    static func storageDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("herald-sdk-e2e-\(UUID().uuidString)")
    }

    @Test func everySignedCallIsVerifiedByTheServer() async throws {
        let message = testMessage("e2e-1")
        let server = try LocalDeviceServer(message: message, imageSize: 1000)
        defer { server.stop() }
        let directory = Self.storageDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = testConfiguration()
        configuration.baseURL = server.baseURL
        let presenter = RecordingPresenter()
        let clock = TestClock()
        let environment = HeraldEnvironment(
            transport: URLSessionTransport(), storage: try FileStorage(directory: directory), clock: .system,
            scheduler: ManualScheduler(clock: clock), random: .system, presenter: presenter,
            regionMonitor: RecordingRegionMonitor(), urlOpener: RecordingOpener())
        let client = HeraldClient(configuration: configuration, environment: environment)
        await client.start()
        await client.setForeground(true)
        await client.setPushToken((0..<32).map { UInt8($0) })
        let pulled = try await client.pull()
        #expect(pulled == [message])
        #expect(presenter.shownIDs == ["e2e-1"])
        client.track("e2e.check", properties: [("note", "a b&c=d/é")])
        await client.flushEvents()
        #expect(client.pendingEvents.isEmpty)
        // A query with signs, decimals and a negative number.
        await client.locationDidUpdate(
            LocationFix(
                coordinate: Coordinate(latitude: -33.865143, longitude: 151.2099), accuracyMeters: 5,
                timestamp: WallClock.system.now()))
        await client.locationDidUpdate(
            LocationFix(
                coordinate: Coordinate(latitude: -33.86, longitude: 151.2099), accuracyMeters: 5,
                timestamp: WallClock.system.now().adding(.seconds(700))))

        let seen = server.seen
        #expect(seen.first?.target == "/api/v1/installs" && seen.first?.signed == false)
        let signed = seen.filter(\.signed)
        #expect(signed.count >= 5, "\(seen.map(\.target))")
        let unverified = signed.filter { !$0.verified }.map(\.target)
        #expect(unverified.isEmpty, "\(unverified)")
        let targets = Set(seen.map { "\($0.method) \($0.target.split(separator: "?").first ?? "")" })
        #expect(
            targets.isSuperset(of: [
                "POST /api/v1/installs", "PUT /api/v1/installs/current", "POST /api/v1/notifications/pull",
                "POST /api/v1/events", "GET /api/v1/geofences",
            ]))
        let geofenceGets = seen.filter { $0.target.hasPrefix("/api/v1/geofences?") }
        #expect(geofenceGets.first?.target == "/api/v1/geofences?latitude=-33.865143&longitude=151.2099")
        #expect(geofenceGets.count == 2)
        #expect(
            geofenceGets.last?.headers.contains { $0.name == "if-none-match" && $0.value == "\"v1\"" } == true)
        let events = try JSON.parse(try #require(seen.first { $0.target == "/api/v1/events" }).body)
        #expect(
            events["events"]?.arrayValue?.map { $0["type"] } == [
                "notification.received", "notification.displayed", "custom",
            ])
        let update = try JSON.parse(try #require(seen.first { $0.target == "/api/v1/installs/current" }).body)
        #expect(update["push_token"] == .string(HexEncoding.encode((0..<32).map { UInt8($0) })))
    }

    @Test func transportErrorsAreOffline() async {
        // Nothing listens on port 9 of the loopback.
        do {
            _ = try await URLSessionTransport().send(
                TransportRequest(method: "GET", url: "http://127.0.0.1:9/x", timeout: .seconds(5)))
            Issue.record("answered")
        } catch {
            #expect(error.code == .offline || error.code == .timedOut)
        }
        do {
            _ = try await URLSessionTransport().send(TransportRequest(method: "GET", url: "file:///etc/passwd"))
            Issue.record("answered")
        } catch {
            #expect(error.code == .invalidURL)
        }
    }

    /// Records the bodies the real fetcher hands out, to read their memory peak afterwards.
    final class RecordingFetcher: MediaFetcher, @unchecked Sendable {
        let inner: URLSessionMediaFetcher
        let bodies = LockedValue<[any MediaBody]>([])
        init(_ inner: URLSessionMediaFetcher) { self.inner = inner }
        func fetch(_ url: String, maximumBytes: Int, timeout: Duration) async throws(AttachmentFailure)
            -> MediaResponse
        {
            let response = try await inner.fetch(url, maximumBytes: maximumBytes, timeout: timeout)
            bodies.update { $0.append(response.body) }
            return response
        }
    }

    static func options() -> RichPushOptions {
        var options = RichPushOptions()
        options.plainHTTPHosts = ["127.0.0.1"]
        options.chunkBytes = 32 * 1024
        options.timeout = .seconds(20)
        return options
    }

    @Test func mediaStreamsToDiskWithBoundedMemory() async throws {
        let server = try LocalDeviceServer(message: testMessage(), imageSize: 8_000_000)
        defer { server.stop() }
        let directory = Self.storageDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fetcher = RecordingFetcher(URLSessionMediaFetcher(options: Self.options(), directory: directory))
        let payload = RichPushTests.payload("\(server.baseURL)/media/image.png", "jpg")
        let result = await RichPushAttacher(fetcher: fetcher, directory: directory, options: Self.options())
            .attach(payload: payload)
        let file = try result.get()
        #expect(file.fileURL.pathExtension == "png", "sniffed: it is a PNG")
        #expect(file.byteCount == 8_000_000)
        #expect([UInt8](try Data(contentsOf: file.fileURL)) == server.image)
        let download = try #require(fetcher.bodies.current.first as? MediaDownload)
        #expect(download.largestChunk <= 32 * 1024, "read back \(download.largestChunk) bytes at a time")
        #expect(RichPushTests.files(in: directory) == [file.fileURL.lastPathComponent], "the download was removed")
    }

    @Test func aDeclaredSizePastTheLimitStopsTheDownloadAtOnce() async throws {
        let server = try LocalDeviceServer(message: testMessage(), imageSize: 1000)
        defer { server.stop() }
        let directory = Self.storageDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fetcher = URLSessionMediaFetcher(plainHTTPHosts: ["127.0.0.1"], directory: directory)
        do {
            _ = try await fetcher.fetch(
                "\(server.baseURL)/media/huge.png", maximumBytes: 1_000_000, timeout: .seconds(20))
            Issue.record("fetched past the limit")
        } catch {
            #expect(error.code == .tooLarge)
        }
        #expect(RichPushTests.files(in: directory).isEmpty)
    }

    @Test func oversizeWrongTypeAndRedirectsAwayFromHTTPSFallBack() async throws {
        let server = try LocalDeviceServer(message: testMessage(), imageSize: 1000)
        defer { server.stop() }
        let directory = Self.storageDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let attacher = RichPushAttacher(
            fetcher: URLSessionMediaFetcher(options: Self.options(), directory: directory), directory: directory,
            options: Self.options())
        for (path, code) in [
            ("huge.png", AttachmentFailure.Code.tooLarge), ("page.png", .wrongContent), ("redirect.png", .insecureURL),
            ("missing.png", .httpStatus),
        ] {
            let result = await attacher.attach(payload: RichPushTests.payload("\(server.baseURL)/media/\(path)", "png"))
            guard case .failure(let failure) = result else {
                Issue.record("\(path) attached")
                continue
            }
            #expect(failure.code == code, "\(path): \(failure)")
        }
        #expect(RichPushTests.files(in: directory).isEmpty)
        // And plain http from any other host is refused before anything is fetched.
        let refused = await RichPushAttacher(fetcher: URLSessionMediaFetcher(), directory: directory)
            .attach(payload: RichPushTests.payload("\(server.baseURL)/media/image.png", "png"))
        #expect(refused == .failure(AttachmentFailure(code: .insecureURL, detail: "only https media is downloaded")))
    }
}
