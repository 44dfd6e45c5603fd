import Foundation
import HeraldCrypto
import HeraldModel
import HeraldTesting
import Testing

/// Media hosting end to end over HTTP: admins upload through the admin API, devices download from `/media/`.
@Suite("Media hosting")
struct MediaTests {
    static let publicURL = "https://cdn.example.test"

    /// A live Herald with public URL `publicURL` and a business.
    final class Fixture {
        let herald: LiveHerald
        let business: LiveHerald.BusinessKeys

        init(transport: LiveHerald.Transport = .inProcess) throws {
            herald = try LiveHerald(transport: transport) { configuration in
                configuration.publicURL = MediaTests.publicURL + "/"
                configuration.delivery.enabled = false
            }
            business = try herald.createBusiness()
        }

        var mediaDirectory: String { herald.directory.file("media") }

        /// Uploads `bytes`; `type` goes in the query unless nil.
        func upload(
            _ bytes: [UInt8], type: String?, contentType: String? = nil, token: String? = "admin",
            business id: Int64? = nil
        ) throws -> TestHTTPClient.Response {
            var headers: [(String, String)] = []
            if let token {
                headers.append(("Authorization", "Bearer " + (token == "admin" ? herald.adminToken : token)))
            }
            if let contentType { headers.append(("Content-Type", contentType)) }
            let query = type.map { "?type=\($0)" } ?? ""
            return try herald.client().request(
                "POST", "/api/admin/businesses/\(id ?? business.id)/media\(query)", headers: headers, body: bytes)
        }

        /// Uploads `bytes` as `type` expecting success; returns the answer's fields.
        func uploaded(_ bytes: [UInt8], type: String) throws -> [String: Any] {
            let response = try upload(bytes, type: type)
            #expect(response.status == 201, "\(response)")
            return try #require(response.json as? [String: Any])
        }

        func get(_ target: String, headers: [(String, String)] = [], method: String = "GET") throws
            -> TestHTTPClient.Response
        {
            try herald.client().request(method, target, headers: headers)
        }
    }

    /// The path of a media URL (everything after the public base).
    static func path(of url: Any?) throws -> String {
        let text = try #require(url as? String)
        #expect(text.hasPrefix(publicURL + "/media/"), "\(text)")
        return String(text.dropFirst(publicURL.count))
    }

    static func errors(_ response: TestHTTPClient.Response) -> [String: [String]] {
        (response.json as? [String: Any])?["errors"] as? [String: [String]] ?? [:]
    }

    // MARK: - Upload

    @Test func eachTypeUploadsWithItsRealBytesAndDownloadsIdentically() throws {
        let fixture = try Fixture()
        let samples: [(type: String, bytes: [UInt8], served: String, contentType: String)] = [
            ("jpg", MediaSamples.jpeg(), "jpg", "image/jpeg"),
            ("jpeg", MediaSamples.jpeg(size: 5000), "jpg", "image/jpeg"),
            ("png", MediaSamples.png, "png", "image/png"), ("gif", MediaSamples.gif, "gif", "image/gif"),
            ("mp3", MediaSamples.mp3WithTag, "mp3", "audio/mpeg"), ("mp3", MediaSamples.mp3Frames, "mp3", "audio/mpeg"),
            ("m4a", MediaSamples.m4a, "m4a", "audio/mp4"), ("wav", MediaSamples.wav, "wav", "audio/wav"),
            ("aiff", MediaSamples.aiff, "aiff", "audio/aiff"), ("aif", MediaSamples.aiff, "aiff", "audio/aiff"),
            ("mp4", MediaSamples.mp4(), "mp4", "video/mp4"), ("m4v", MediaSamples.mp4(), "m4v", "video/x-m4v"),
            ("mpeg", MediaSamples.mpeg, "mpeg", "video/mpeg"), ("avi", MediaSamples.avi, "avi", "video/x-msvideo"),
        ]
        for sample in samples {
            let answer = try fixture.uploaded(sample.bytes, type: sample.type)
            let sha = Hex.encode(SHA256.hash(sample.bytes))
            #expect(answer["type"] as? String == sample.served)
            #expect(answer["size"] as? Int == sample.bytes.count)
            #expect(answer["sha256"] as? String == sha)
            #expect(answer["url"] as? String == "\(Self.publicURL)/media/\(sha).\(sample.served)")

            let download = try fixture.get(try Self.path(of: answer["url"]))
            #expect(download.status == 200, "\(sample.type): \(download)")
            #expect(download.header("content-type") == sample.contentType)
            #expect(download.header("content-length") == String(sample.bytes.count))
            #expect(Hex.encode(SHA256.hash(download.body)) == sha, "\(sample.type): served bytes differ")
        }
        let stored = try FileManager.default.contentsOfDirectory(atPath: fixture.mediaDirectory)
        #expect(stored.allSatisfy { !$0.hasPrefix(".") }, "temporary files left behind: \(stored)")
    }

    @Test func theTypeMayComeFromTheContentType() throws {
        let fixture = try Fixture()
        for (contentType, bytes, type) in [
            ("image/png", MediaSamples.png, "png"), ("audio/x-m4a", MediaSamples.m4a, "m4a"),
            ("audio/x-wav", MediaSamples.wav, "wav"), ("video/avi", MediaSamples.avi, "avi"),
            ("image/jpeg; charset=binary", MediaSamples.jpeg(), "jpg"),
        ] {
            let response = try fixture.upload(bytes, type: nil, contentType: contentType)
            #expect(response.status == 201, "\(contentType): \(response)")
            #expect((response.json as? [String: Any])?["type"] as? String == type)
        }
        // The query wins over a generic Content-Type.
        let both = try fixture.upload(MediaSamples.gif, type: "gif", contentType: "application/octet-stream")
        #expect(both.status == 201)
    }

    @Test func bytesThatAreNotTheirTypeAreRefusedAndNotStored() throws {
        let fixture = try Fixture()
        for (type, bytes) in [
            ("jpg", MediaSamples.png), ("png", MediaSamples.jpeg()), ("gif", Array("GIF88a-not-a-gif".utf8)),
            ("mp3", MediaSamples.wav), ("m4a", MediaSamples.quickTime), ("mp4", MediaSamples.quickTime),
            ("wav", MediaSamples.avi), ("aiff", MediaSamples.wav), ("avi", MediaSamples.wav),
            ("mpeg", MediaSamples.mp4()), ("jpg", Array("<html><script>alert(1)</script>".utf8)),
        ] {
            let response = try fixture.upload(bytes, type: type)
            #expect(response.status == 422, "\(type): \(response)")
            #expect(Self.errors(response)["file"]?.first?.contains("is not a") == true, "\(response)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.mediaDirectory).isEmpty)
    }

    @Test func unknownMissingAndEmptyAreRefused() throws {
        let fixture = try Fixture()
        let unknown = try fixture.upload(MediaSamples.png, type: "bmp")
        #expect(unknown.status == 422)
        let listed = try #require(Self.errors(unknown)["type"]?.first)
        for name in ["jpg", "png", "gif", "mp3", "m4a", "wav", "aiff", "mp4", "mpeg", "avi"] {
            #expect(listed.contains(name), "\(listed) should list \(name)")
        }
        let untyped = try fixture.upload(MediaSamples.png, type: nil, contentType: "application/octet-stream")
        #expect(untyped.status == 422)
        #expect(Self.errors(untyped)["type"] != nil)
        let empty = try fixture.upload([], type: "png")
        #expect(empty.status == 422)
        #expect(Self.errors(empty)["file"]?.first?.contains("empty") == true)
    }

    @Test func filesOverTheirTypesLimitAreRefused() throws {
        let fixture = try Fixture()
        let tooBig = MediaSamples.jpeg(size: 10 * 1024 * 1024 + 1)
        let response = try fixture.upload(tooBig, type: "jpg")
        #expect(response.status == 422, "\(response)")
        let message = try #require(Self.errors(response)["file"]?.first)
        #expect(message.contains("10485760"), "\(message)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.mediaDirectory).isEmpty)
        // Exactly at the limit is fine, and so are videos well past the server's usual 1 MiB.
        #expect(try fixture.upload(MediaSamples.jpeg(size: 10 * 1024 * 1024), type: "jpg").status == 201)
        let video = MediaSamples.mp4(size: 20_000_000)
        let answer = try fixture.uploaded(video, type: "mp4")
        let range = try fixture.get(try Self.path(of: answer["url"]), headers: [("Range", "bytes=19999000-")])
        #expect(range.status == 206)
        #expect(range.body == Array(video[19_999_000...]))
    }

    @Test(.tags(.endToEnd)) func bodiesOverTheLargestLimitAreRefusedBeforeTheyAreRead() throws {
        let fixture = try Fixture(transport: .socket)
        let client = fixture.herald.client()
        let head =
            "POST /api/admin/businesses/\(fixture.business.id)/media?type=mp4 HTTP/1.1\r\nHost: t\r\n"
            + "Authorization: Bearer \(fixture.herald.adminToken)\r\nContent-Length: \(50 * 1024 * 1024 + 1)\r\n\r\n"
        try client.send(raw: Array(head.utf8))
        let response = try client.readResponse()
        #expect(response.status == 413)
        // Other admin routes keep the 1 MiB limit.
        let other = fixture.herald.client()
        try other.send(
            raw: Array(
                "POST /api/admin/businesses HTTP/1.1\r\nHost: t\r\nContent-Length: \((1 << 20) + 1)\r\n\r\n".utf8))
        #expect(try other.readResponse().status == 413)
    }

    @Test func uploadsNeedTheAdminTokenAndABusiness() throws {
        let fixture = try Fixture()
        let missing = try fixture.upload(MediaSamples.png, type: "png", token: nil)
        #expect(missing.status == 401)
        let wrong = try fixture.upload(MediaSamples.png, type: "png", token: "hadm_wrong")
        #expect(wrong.status == 401)
        let noBusiness = try fixture.upload(MediaSamples.png, type: "png", business: 9999)
        #expect(noBusiness.status == 404)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.mediaDirectory).isEmpty)
    }

    @Test func reuploadingTheSameBytesGivesTheSameURL() throws {
        let fixture = try Fixture()
        let first = try fixture.uploaded(MediaSamples.png, type: "png")
        let second = try fixture.uploaded(MediaSamples.png, type: "png")
        #expect(first["url"] as? String == second["url"] as? String)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.mediaDirectory).count == 1)
        let name = try #require((first["url"] as? String)?.split(separator: "/").last.map(String.init))
        let attributes = try FileManager.default.attributesOfItem(atPath: fixture.mediaDirectory + "/" + name)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o644)
    }

    @Test(
        "without a public URL, links name the port the server listens on (--port 0 picks one) and download",
        .tags(.endToEnd))
    func linksNameTheBoundPort() throws {
        let herald = try LiveHerald(transport: .socket) { $0.delivery.enabled = false }
        let business = try herald.createBusiness()
        let response = try herald.client().request(
            "POST", "/api/admin/businesses/\(business.id)/media?type=png",
            headers: [("Authorization", "Bearer " + herald.adminToken)], body: MediaSamples.png)
        let url = try #require((response.json as? [String: Any])?["url"] as? String, "\(response)")
        let base = "http://127.0.0.1:\(herald.port)"
        #expect(herald.port != 0 && url.hasPrefix(base + "/media/"), "\(url)")
        #expect(try herald.client().request("GET", String(url.dropFirst(base.count))).body == MediaSamples.png)
    }

    @Test func theURLIsUsableAsANotificationsMedia() throws {
        let fixture = try Fixture()
        let answer = try fixture.uploaded(MediaSamples.jpeg(), type: "jpg")
        let app = fixture.herald.mobileClient(for: fixture.business)
        #expect(try app.signUp(email: "ann@example.com", token: randomAPNsToken()).status == 200)
        let media = JSON.object([
            ("url", .string(answer["url"] as! String)), ("type", .string(answer["type"] as! String)),
        ])
        let body = JSON.object([
            ("user_ids", .array([.int(app.userID!)])), ("title", "New menu"), ("body", "Look"), ("media", media),
        ])
        let sent = try fixture.herald.admin(
            "POST", "/api/admin/businesses/\(fixture.business.id)/notifications", json: body.encodedString)
        #expect(sent.status == 202, "\(sent)")

        // A link to this Herald's media that names no upload, or gives the file another type, is a 422.
        let url = answer["url"] as! String
        let missing = String(url.prefix(url.count - 68)) + String(repeating: "0", count: 64) + ".jpg"
        for (media, field) in [
            (JSON.object([("url", .string(missing)), ("type", "jpg")]), "media.url"),
            (JSON.object([("url", .string(url)), ("type", "png")]), "media.type"),
        ] {
            let wrong = JSON.object([
                ("user_ids", .array([.int(app.userID!)])), ("title", "New menu"), ("body", "Look"), ("media", media),
            ])
            let refused = try fixture.herald.admin(
                "POST", "/api/admin/businesses/\(fixture.business.id)/notifications", json: wrong.encodedString)
            #expect(refused.status == 422 && refused.text.contains(field), "\(refused)")
        }
    }

    // MARK: - Download

    @Test func downloadsCarryCachingHeadersAndAnswerConditionalRequests() throws {
        let fixture = try Fixture()
        let bytes = MediaSamples.jpeg(size: 50_000)
        let path = try Self.path(of: try fixture.uploaded(bytes, type: "jpg")["url"])
        let sha = Hex.encode(SHA256.hash(bytes))
        let whole = try fixture.get(path)
        #expect(whole.status == 200)
        #expect(whole.header("etag") == "\"\(sha)\"")
        #expect(whole.header("cache-control") == "public, max-age=31536000, immutable")
        #expect(whole.header("accept-ranges") == "bytes")
        let lastModified = try #require(whole.header("last-modified"))
        #expect(lastModified.hasSuffix(" GMT") && lastModified.count == 29, "\(lastModified)")

        for tag in ["\"\(sha)\"", "W/\"\(sha)\"", "\"other\", \"\(sha)\"", "*"] {
            let cached = try fixture.get(path, headers: [("If-None-Match", tag)])
            #expect(cached.status == 304, "\(tag)")
            #expect(cached.body.isEmpty)
            #expect(cached.header("etag") == "\"\(sha)\"")
            #expect(cached.header("content-length") == "50000", "the 200's length (RFC 9110 §8.6)")
        }
        #expect(try fixture.get(path, headers: [("If-None-Match", "\"other\"")]).status == 200)
        #expect(try fixture.get(path, headers: [("If-Modified-Since", lastModified)]).status == 304)

        let client = fixture.herald.client()
        let head = try client.request("HEAD", path)
        #expect(head.status == 200)
        #expect(head.header("content-length") == "50000")
        #expect(head.header("etag") == "\"\(sha)\"")
        // The same connection then answers a GET correctly: the HEAD sent no body.
        let after = try client.request("GET", path, headers: [("Range", "bytes=0-9")])
        #expect(after.body == Array(bytes[0..<10]))
    }

    @Test func rangesAnswer206Or416() throws {
        let fixture = try Fixture()
        let bytes = MediaSamples.jpeg(size: 10_000)
        let path = try Self.path(of: try fixture.uploaded(bytes, type: "jpg")["url"])
        let cases: [(String, Range<Int>, String)] = [
            ("bytes=0-99", 0..<100, "bytes 0-99/10000"), ("bytes=-100", 9900..<10_000, "bytes 9900-9999/10000"),
            ("bytes=9000-", 9000..<10_000, "bytes 9000-9999/10000"),
            ("bytes=9990-20000", 9990..<10_000, "bytes 9990-9999/10000"),
        ]
        for (header, slice, contentRange) in cases {
            let response = try fixture.get(path, headers: [("Range", header)])
            #expect(response.status == 206, "\(header)")
            #expect(response.header("content-range") == contentRange)
            #expect(response.header("content-length") == String(slice.count))
            #expect(response.body == Array(bytes[slice]), "\(header)")
        }
        for header in ["bytes=10000-", "bytes=20000-30000", "bytes=-0"] {
            let response = try fixture.get(path, headers: [("Range", header)])
            #expect(response.status == 416, "\(header)")
            #expect(response.header("content-range") == "bytes */10000")
        }
        // Several ranges, or an If-Range naming another version: the whole file.
        let multiple = try fixture.get(path, headers: [("Range", "bytes=0-1,5-6")])
        #expect(multiple.status == 200)
        #expect(multiple.body == bytes)
        let stale = try fixture.get(path, headers: [("Range", "bytes=0-1"), ("If-Range", "\"old\"")])
        #expect(stale.status == 200)
        let current = try fixture.get(
            path, headers: [("Range", "bytes=0-1"), ("If-Range", "\"\(Hex.encode(SHA256.hash(bytes)))\"")])
        #expect(current.status == 206)
    }

    @Test func namesOtherThanStoredHashesAre404AndNothingOutsideIsReachable() throws {
        let fixture = try Fixture()
        let answer = try fixture.uploaded(MediaSamples.png, type: "png")
        let sha = try #require(answer["sha256"] as? String)
        // Files a traversal might aim at: the data directory's own secrets and the system's.
        #expect(FileManager.default.fileExists(atPath: fixture.herald.directory.file("admin-token")))
        let targets = [
            "/media/../../etc/passwd", "/media/..%2f..%2f..%2fetc%2fpasswd", "/media/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
            "/media/%2e%2e/admin-token", "/media/..%2fadmin-token", "/media/%2fetc%2fpasswd", "/media//etc/passwd",
            "/media/%2Fetc%2Fpasswd", "/media/.", "/media/..", "/media/", "/media/admin-token", "/media/herald.db",
            "/media/" + sha.uppercased() + ".png", "/media/\(sha).PNG", "/media/\(sha).jpg", "/media/\(sha).png.tmp",
            "/media/\(sha).png%00.txt", "/media/\(sha).exe", "/media/\(String(repeating: "0", count: 64)).png",
            "/media/" + String(repeating: "a", count: 4000), "/media/\(sha).png/..", "/etc/passwd",
        ]
        for target in targets {
            let response = try fixture.get(target)
            #expect(response.status == 404, "\(target): \(response.status)")
            #expect(response.header("content-type")?.hasPrefix("application/json") == true, "\(target)")
            #expect(!response.text.contains("root:"), "\(target)")
        }
        #expect(try fixture.get("/media/\(sha).png").status == 200)
    }
}

// MARK: - Sample files

/// Small but real files of each media type, built in memory: the bytes each format starts with, then filler.
enum MediaSamples {
    /// A valid 1×1 transparent PNG.
    static let png: [UInt8] = hex(
        "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
            + "0000000d49444154789c6360000002000001e221bc330000000049454e44ae426082")

    /// A valid 1×1 GIF89a.
    static let gif: [UInt8] =
        Array("GIF89a".utf8) + hex("010001008000000000ffffff21f90401000000002c00000000010001000002024401003b")

    /// A JFIF header, then `size` bytes in all, ending with the end-of-image marker.
    static func jpeg(size: Int = 4096) -> [UInt8] {
        let head = hex("ffd8ffe000104a46494600010100000100010000")
        return head + filler(size - head.count - 2, seed: 1) + [0xFF, 0xD9]
    }

    /// An ID3v2.4 tag, then MPEG-1 layer III frames (128 kbit/s, 44.1 kHz).
    static let mp3WithTag: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0] + mp3Frames
    /// MPEG audio frames with no tag.
    static let mp3Frames: [UInt8] = (0..<4).flatMap { _ in hex("fffb9064") + [UInt8](repeating: 0, count: 413) }

    /// An MPEG-4 audio file: `ftyp` with brand `M4A `.
    static let m4a: [UInt8] = ftyp(major: "M4A ", compatible: ["M4A ", "mp42", "isom"]) + filler(2000, seed: 2)
    /// An MPEG-4 video of `size` bytes: `ftyp` with brand `isom`.
    static func mp4(size: Int = 3000) -> [UInt8] {
        let head = ftyp(major: "isom", compatible: ["isom", "iso2", "avc1", "mp41"])
        return head + filler(size - head.count, seed: 3)
    }
    /// A QuickTime movie (`qt  `): an ISO media file that is not MPEG-4.
    static let quickTime: [UInt8] = ftyp(major: "qt  ", compatible: ["qt  "]) + filler(500, seed: 4)

    /// A RIFF/WAVE file with a PCM format chunk and a little data.
    static let wav: [UInt8] = riff(
        "WAVE", hex("666d7420100000000100010044ac000088580100020010006461746108000000") + filler(8, seed: 5))
    /// An AIFF file (FORM/AIFF with a COMM chunk).
    static let aiff: [UInt8] =
        Array("FORM".utf8) + be32(46) + Array("AIFF".utf8) + Array("COMM".utf8) + be32(18)
        + hex("000100000000001040 0eac44000000000000".replacingOccurrences(of: " ", with: "")) + Array("SSND".utf8)
        + be32(8) + [UInt8](repeating: 0, count: 8)
    /// An AVI file (RIFF/AVI with a LIST header).
    static let avi: [UInt8] = riff("AVI ", Array("LIST".utf8) + be32le(4) + Array("hdrl".utf8) + filler(64, seed: 6))
    /// An MPEG program stream: a pack header, then filler.
    static let mpeg: [UInt8] = hex("000001ba4400040004010189c3f8") + filler(1000, seed: 7)

    /// Deterministic bytes that look like nothing in particular.
    static func filler(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<max(0, count)).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    private static func ftyp(major: String, compatible: [String]) -> [UInt8] {
        let body = Array(major.utf8) + [0, 0, 2, 0] + compatible.flatMap { Array($0.utf8) }
        return be32(UInt32(8 + body.count)) + Array("ftyp".utf8) + body
    }

    private static func riff(_ form: String, _ body: [UInt8]) -> [UInt8] {
        Array("RIFF".utf8) + be32le(UInt32(4 + body.count)) + Array(form.utf8) + body
    }

    private static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func be32le(_ value: UInt32) -> [UInt8] { be32(value).reversed() }
}
