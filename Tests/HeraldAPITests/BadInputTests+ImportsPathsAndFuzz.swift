import Foundation
import HeraldCrypto
import HeraldModel
import HeraldTesting
import Testing

/// Hostile user-import lines, hostile paths and queries, and random bodies.
extension BadInputTests {
    // MARK: - The user import (NDJSON: a bad line is refused in the 200, the others imported)

    /// The fields of an import line, and which wrong-typed values they may take.
    static let importSlots: [Slot] = [
        Slot("external_id", lax: ["number", "negative", "zero", "huge integer"]), Slot("email"), Slot("first_name"),
        Slot("last_name"), Slot("attributes", lax: ["object"]),
        Slot("attributes.tier", lax: BadInputTests.wrongTypes.subtracting(["object", "array"])),
        Slot("devices"), Slot("devices.0"), Slot("devices.0.install_id"), Slot("devices.0.platform"),
        Slot("devices.0.push_token"),
    ]

    static func importLine(_ serial: Int) -> JSON {
        [
            "external_id": .string("crm-\(serial)"), "email": .string("user\(serial)@example.com"), "first_name": "Ann",
            "last_name": "Lee", "attributes": ["tier": "gold", "age": 34],
            "devices": [
                [
                    "install_id": .string("install-\(serial)"), "platform": "android",
                    "push_token": .string("fcm-token-\(serial)-xxxxxxxxxxxxxxxxxxxx"),
                ]
            ],
        ]
    }

    @Test func hostileImportLinesAreRefusedOneByOne() throws {
        let harness = try Harness()
        var lines: [[UInt8]] = []
        var expectations: [Expectation] = []
        for slot in Self.importSlots {
            for value in Self.hostileValues {
                let serial = lines.count
                var json = Self.importLine(serial).replacing(slot.path[...], with: .string(Self.sentinel))
                if slot.path == ["email"] { json = json.replacing(["external_id"], with: .null) }
                let text = json.encoded
                let marker = JSON.string(Self.sentinel).encoded
                let range = try #require(text.firstRange(of: marker))
                lines.append(Array(text[..<range.lowerBound]) + value.raw + Array(text[range.upperBound...]))
                expectations.append(value.kind == .rejected && slot.lax.contains(value.name) ? .either : value.kind)
            }
        }
        for (_, bytes) in Self.malformedBodies where !bytes.contains(0x0A) {
            lines.append(bytes)
            expectations.append(.malformed)
        }
        let response = try harness.http.request(
            "POST", "/api/admin/businesses/\(harness.fixture.business.id)/users/import",
            headers: [("Authorization", "Bearer \(harness.fixture.herald.adminToken)")],
            body: Array(lines.joined(separator: [0x0A])))
        Self.check(response, .either, "import")
        #expect(response.status == 200, "\(response.text.prefix(300))")
        var refused: [Int64: JSON] = [:]
        for item in response.value?["rejected"]?.arrayValue ?? [] {
            refused[item["line"]?.int64Value ?? 0] = item["errors"]
        }
        for (index, expectation) in expectations.enumerated() {
            let errors = refused[Int64(index + 1)]
            switch expectation {
            case .malformed, .rejected:
                #expect(
                    errors?.objectValue?.isEmpty == false, "line \(index + 1) was accepted: \(lines[index].prefix(200))"
                )
            case .either:
                break
            }
        }
        let created = response.value?["created"]?.int64Value ?? 0
        let updated = response.value?["updated"]?.int64Value ?? 0
        #expect(Int(created + updated) + refused.count == lines.count, "\(response.text.prefix(300))")
        try harness.expectHealthy()
    }

    // MARK: - Hostile paths and queries

    @Test(arguments: [
        "/api2/mobile/notifications/-1", "/api2/mobile/notifications/0",
        "/api2/mobile/notifications/99999999999999999999",
        "/api2/mobile/notifications/abc", "/api2/mobile/notifications/%00", "/api2/mobile/notifications/%FF%FE",
        "/api2/mobile/notifications/1e3", "/api2/mobile/notifications/%27%20OR%201%3D1%20--",
        "/api2/mobile/notifications/1%2F2",
        "/api2/mobile/notifications/" + String(repeating: "9", count: 2_000),
    ])
    func hostileNotificationIDsAre404(_ target: String) throws {
        let harness = try Harness()
        let endpoint = Endpoint(method: "DELETE", path: target, access: .signedIn, slots: [], body: { _ in [:] })
        let body = JSON.object([("client", .string(harness.fixture.business.client))]).encoded
        let response = try harness.send(endpoint, target: target, body: body)
        Self.check(response, .rejected, target)
        #expect(response.status == 404, "\(target): \(response)")
        #expect(try harness.app.entries().count == 3)
        try harness.expectHealthy()
    }

    @Test(arguments: [
        "qty=1e400", "qty=%00", "qty=-99999999999999999999", "qty=abc&qty=5", "page=-1", "page=99999999999999999999",
        "qty=%27%3B%20DROP%20TABLE%20notifications%3B%20--", "qty=" + String(repeating: "1", count: 5_000),
    ])
    func hostileQueriesAre422(_ query: String) throws {
        let harness = try Harness()
        let response = try harness.app.inbox(query)
        Self.check(response, .rejected, query)
        #expect(response.status == 422, "\(query): \(response)")
        try harness.expectHealthy()
    }

    @Test(arguments: [
        "/api/admin/businesses/-1", "/api/admin/businesses/0", "/api/admin/businesses/99999999999999999999",
        "/api/admin/businesses/%27%20OR%201%3D1", "/api/admin/businesses/1%00",
        "/api/admin/businesses/1/templates/%2e%2e",
        "/api/admin/businesses/1/templates/..%2Fsignup", "/api/admin/businesses/1/templates/checkin%00",
        "/api/admin/businesses/1/templates/CHECKIN", "/api/admin/businesses/1/deliveries?notification_id=-1",
        "/api/admin/businesses/1/deliveries?notification_id=0",
        "/api/admin/businesses/1/deliveries?notification_id=99999999999999999999",
        "/api/admin/businesses/1/deliveries?notification_id=%00",
        "/api/admin/businesses/1/deliveries?notification_id=1%20OR%201%3D1",
        "/api/admin/businesses/1/deliveries?notification_id=1e400",
        "/api/admin/businesses/1/segments/-1", "/api/admin/businesses/1/segments/99999999999999999999",
        "/api/admin/businesses/1/segments/%27%20OR%201%3D1", "/api/admin/businesses/1/segments?after=-1",
        "/api/admin/businesses/1/segments?limit=1e400", "/api/admin/businesses/1/segments?limit=%00",
        "/api/admin/businesses/1/campaigns/0/report", "/api/admin/businesses/1/campaigns/-1/report",
        "/api/admin/businesses/1/campaigns/99999999999999999999/report",
        "/api/admin/businesses/1/campaigns/%27%20OR%201%3D1/report", "/api/admin/businesses/1/campaigns/1%00/report",
    ])
    func hostileAdminTargetsAre4xx(_ target: String) throws {
        let harness = try Harness()
        let response = try harness.fixture.herald.admin("GET", target)
        Self.check(response, .rejected, target)
        try harness.expectHealthy()
    }

    // MARK: - Fuzz

    @Test func randomBodiesNeverBreakTheServer() throws {
        let harness = try Harness()
        var random = SeededGenerator(seed: 0x4865_7261_6C64)  // "Herald"
        let fuzzed = [
            Self.endpoints[0], Self.endpoints[1], Self.endpoints[2], Self.endpoints[6], Self.endpoints[8],
            Self.endpoints[9],
            Self.endpoints[11], Self.endpoints[14],
        ]
        let fuzzedDevice = Self.deviceEndpoints.prefix(4)
        let jsonish = Array(#"{}[]":,0123456789.eE+-truefalsnul\ abcxyz"#.utf8)
        for round in 0..<300 {
            let endpoint = round % 4 == 3 ? fuzzedDevice[round / 4 % 4] : fuzzed[round % fuzzed.count]
            var bytes: [UInt8]
            switch round % 3 {
            case 0:  // raw random bytes
                bytes = (0..<Int.random(in: 0...400, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
            case 1:  // JSON-ish characters
                bytes = (0..<Int.random(in: 1...200, using: &random)).map { _ in jsonish.randomElement(using: &random)!
                }
            default:  // a good body with a few bytes changed
                var json = endpoint.body(harness.context())
                if endpoint.access == .mobile || endpoint.access == .signedIn {
                    json = .object([("client", .string(harness.fixture.business.client))] + (json.objectValue ?? []))
                }
                bytes = json.encoded
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
            }
            let response = try harness.send(endpoint, body: bytes)
            Self.check(response, .either, "fuzz round \(round) on \(endpoint.testDescription): \(bytes.prefix(80))")
        }
        try harness.expectHealthy()
        // The signed-in user is still who they were.
        #expect(try harness.app.profile().value?["email"] == "ann@example.com")
    }
}
