import Foundation
import HeraldCrypto
import HeraldModel
import HeraldTesting
import Testing

/// Every device-API call but registration is signed with the install's credential; anything else is a 401
/// `{"errors":{"signature":[reason]}}` with the server's `Date`.
@Suite("Device API: request signatures")
struct DeviceSignatureTests {
    static let keyID = DeviceRequestSignature.keyIDHeader
    static let timestamp = DeviceRequestSignature.timestampHeader
    static let signature = DeviceRequestSignature.signatureHeader

    /// Expects a signature refusal giving `reason` (a prefix of it), with a `Date` the SDK can sign with.
    func expectRefused(
        _ response: TestHTTPClient.Response, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        expectError(response, 401, ["signature"], sourceLocation: sourceLocation)
        let said = response.errorFields?["signature"]?.first ?? ""
        #expect(said.hasPrefix(reason), "\(said)", sourceLocation: sourceLocation)
        #expect(response.header("date")?.hasSuffix(" GMT") == true, sourceLocation: sourceLocation)
    }

    @Test func missingUnknownAndWrongSignaturesAreRefusedSayingWhich() throws {
        let fixture = try ServerFixture()
        let phone = try fixture.install()
        let pull = "/api/v1/notifications/pull"
        #expect(try phone.call("POST", pull).status == 200)
        expectRefused(try phone.call("POST", pull, keyID: ""), "missing \(Self.keyID) header")
        expectRefused(try phone.call("POST", pull, timestamp: ""), "missing \(Self.timestamp) header")
        expectRefused(try phone.call("POST", pull, signature: ""), "missing \(Self.signature) header")
        expectRefused(try phone.call("POST", pull, keyID: "hk_nobody"), "\(Self.keyID) names no install")
        expectRefused(try phone.call("POST", pull, secret: "not-the-secret"), "\(Self.signature) does not match")
        expectRefused(try phone.call("POST", pull, signature: String(repeating: "0", count: 64)), "\(Self.signature)")
        expectRefused(try phone.call("POST", pull, signature: "zz"), "\(Self.signature) does not match")
        expectRefused(try phone.call("POST", pull, timestamp: "17e8"), "\(Self.timestamp) must be Unix seconds")
        expectRefused(try phone.call("POST", pull, timestamp: "-5"), "\(Self.timestamp) must be Unix seconds")
        // Another business's install signs for itself only.
        let other = try fixture.herald.createBusiness(name: "Taco Co")
        let stranger = fixture.herald.deviceClient()
        #expect(try stranger.register(apiKey: other.apiKey).status == 201)
        expectRefused(
            try phone.call("POST", pull, keyID: stranger.keyID, secret: phone.secret), "\(Self.signature) does not")
        // Upper-case hex is the same signature.
        let now = String(WallClock.system.now().seconds)
        let upper = DeviceTestClient.signature(
            method: "POST", target: pull, timestamp: now, body: [], secret: phone.secret!
        ).uppercased()
        #expect(try phone.call("POST", pull, timestamp: now, signature: upper).status == 200)
    }

    @Test func aReplayedPullIsAnsweredAsBeforeAndTakesNothingNew() throws {
        let fixture = try ServerFixture()
        let phone = try fixture.install("install-1")
        let campaign = try fixture.campaign()
        let first = try fixture.message(to: "install-1", campaign: campaign, headline: "First")
        let pull = "/api/v1/notifications/pull"
        func ids(_ response: TestHTTPClient.Response) -> [JSON]? {
            #expect(response.status == 200, "\(response)")
            return response.value?["data"]?.arrayValue?.map { $0["id"] ?? .null }
        }
        // The device's pull, captured on the way.
        let now = WallClock.system.now().seconds
        let captured = DeviceTestClient.signature(
            method: "POST", target: pull, timestamp: String(now), body: [], secret: phone.secret!)
        #expect(
            ids(try phone.call("POST", pull, timestamp: String(now), signature: captured)) == [
                .string(String(first.id))
            ])
        // A message arrives; the capture is replayed (in either case of hex) within the window: the first answer
        // again, nothing of the new message.
        let second = try fixture.message(to: "install-1", campaign: campaign, headline: "Second")
        let attacker = fixture.herald.deviceClient(installID: "install-1")
        for signature in [captured, captured.uppercased()] {
            let replayed = try attacker.call(
                "POST", pull, keyID: phone.keyID, timestamp: String(now), signature: signature)
            #expect(ids(replayed) == [.string(String(first.id))])
        }
        // The device's own next pull (signed anew) gets the new message.
        #expect(ids(try phone.call("POST", pull, timestamp: String(now + 1))) == [.string(String(second.id))])
        #expect(ids(try phone.call("POST", pull, timestamp: String(now + 2))) == [])
    }

    @Test func aTimestampMoreThanFiveMinutesOffIsRefused() throws {
        let fixture = try ServerFixture()
        let phone = try fixture.install()
        let now = WallClock.system.now().seconds
        let pull = "/api/v1/notifications/pull"
        for offset: Int64 in [-250, 250] {
            #expect(try phone.call("POST", pull, timestamp: String(now + offset)).status == 200, "\(offset)")
        }
        // Well past the limit (320 s, not 301): the request reaches the server a moment after `now` was read, and
        // on a busy machine that moment can be seconds.
        for offset: Int64 in [-320, 320, -86_400] {
            let response = try phone.call("POST", pull, timestamp: String(now + offset))
            expectRefused(response, "\(Self.timestamp) is ")
            #expect(response.errorFields?["signature"]?.first?.contains("at most 300 s") == true)
            // The Date it answers is the server's time, to sign with.
            let date = try #require(response.header("date"))
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
            let server = try #require(formatter.date(from: date)).timeIntervalSince1970
            #expect(abs(Int64(server) - now) < 60)
        }
    }

    @Test func aSignatureCoversTheMethodPathQueryAndBody() throws {
        let fixture = try ServerFixture()
        let phone = try fixture.install()
        let segments = JSON.object([("segments", ["vip"])]).encoded
        let path = "/api/v1/device/segments"
        #expect(try phone.call("PUT", path, body: segments).status == 200)

        // The body and its signature replayed on another path, or with another method: refused.
        let replayed = try phone.call(
            "PUT", "/api/v1/installs/current", body: segments, signedTarget: path)
        expectRefused(replayed, "\(Self.signature) does not match")
        let time = String(WallClock.system.now().seconds)
        let signed = DeviceTestClient.signature(
            method: "PUT", target: path, timestamp: time, body: segments, secret: phone.secret!)
        expectRefused(
            try phone.call("POST", "/api/v1/events", body: segments, timestamp: time, signature: signed),
            "\(Self.signature) does not match")
        // A tampered body.
        let tampered = JSON.object([("segments", ["admin"])]).encoded
        expectRefused(
            try phone.call("PUT", path, body: tampered, signedBody: segments), "\(Self.signature) does not match")
        #expect(try fixture.store.read { try $0.devices.segments(id: fixture.device(phone.installID)!.id) } == ["vip"])

        // The query: signed in its canonical order, so reordering is the same request; changing a value is not.
        let message = try fixture.message(to: phone.installID, campaign: nil)
        let target = "/api/v1/notifications/\(message.id)"
        #expect(try phone.call("GET", target + "?b=2&a=1").status == 200)
        #expect(try phone.call("GET", target + "?a=1&b=2", signedTarget: target + "?b=2&a=1").status == 200)
        #expect(try phone.call("GET", target + "?a=1&b=%20x", signedTarget: target + "?b=+x&a=1").status == 200)
        expectRefused(
            try phone.call("GET", target + "?a=1&b=3", signedTarget: target + "?a=1&b=2"),
            "\(Self.signature) does not match")
        expectRefused(
            try phone.call("GET", target + "?a=1", signedTarget: target), "\(Self.signature) does not match")
    }

    @Test func theSignedBytesAreTheDocumentedCanonicalForm() throws {
        // Written out by hand, not through DeviceRequestSignature: METHOD \n path \n sorted encoded query \n
        // timestamp \n body.
        let fixture = try ServerFixture()
        let phone = try fixture.install()
        let message = try fixture.message(to: phone.installID, campaign: nil)
        let time = String(WallClock.system.now().seconds)
        let path = "/api/v1/notifications/\(message.id)"
        let canonical = "GET\n\(path)\nlatitude=40.7&name=Caf%C3%A9%20%26%20Co&zeta=\n\(time)\n"
        let hmac = Hex.encode(HMACSHA256.authenticationCode(for: Array(canonical.utf8), key: Array(phone.secret!.utf8)))
        let target = path + "?zeta=&name=Caf%C3%A9+%26+Co&latitude=40.7"
        let response = try phone.call("GET", target, timestamp: time, signature: hmac)
        #expect(response.status == 200, "\(response)")
        let body = Array(#"{"segments":["a"]}"#.utf8)
        let put = "PUT\n/api/v1/device/segments\n\n\(time)\n" + String(decoding: body, as: UTF8.self)
        let putSignature = Hex.encode(
            HMACSHA256.authenticationCode(for: Array(put.utf8), key: Array(phone.secret!.utf8)))
        #expect(
            try phone.call("PUT", "/api/v1/device/segments", body: body, timestamp: time, signature: putSignature)
                .status == 200)
    }
}
