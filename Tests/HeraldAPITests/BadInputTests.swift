import Foundation
import HeraldCrypto
import HeraldModel
import HeraldTesting
import Testing

/// Hostile input at every endpoint that reads a body: malformed JSON, the wrong JSON types, strings full of
/// quotes, SQL, NUL bytes and megabytes, numbers JSON can't hold, random bytes. Whatever comes in, the answer is
/// a 4xx with `{"errors":{…}}` (or a 2xx when the input happens to be acceptable) — never a 5xx, never a body
/// that isn't JSON, never a hang — and the server keeps answering `/healthz`.
@Suite("Hostile input")
struct BadInputTests {
    // MARK: - The table

    /// Who may call an endpoint.
    enum Access: Sendable { case mobile, signedIn, admin, pos, install, device }

    /// What an endpoint's happy path needs.
    struct Context: Sendable {
        let businessID: Int64
        let userID: Int64
        let locationID: Int64
        let serial: Int
        /// The business's live device-API key.
        let apiKey: String
        /// The approval code of the harness's sandbox install.
        let approvalCode: String
        /// The business's identity key (what its backend signs external ids with).
        let identityKey: String
    }

    /// A place in the body where a hostile value goes, and which wrong-typed values the endpoint may accept there.
    struct Slot: Sendable {
        let path: [String]
        let lax: Set<String>

        init(_ path: String, lax: Set<String> = []) {
            self.path = path.split(separator: ".").map(String.init)
            self.lax = lax
        }
    }

    /// An endpoint that reads a JSON body.
    struct Endpoint: Sendable, CustomTestStringConvertible {
        let method: String
        let path: String
        let access: Access
        let slots: [Slot]
        let body: @Sendable (Context) -> JSON

        var testDescription: String { "\(method) \(path)" }

        func target(_ context: Context) -> String {
            path.replacingOccurrences(of: "{business}", with: String(context.businessID))
        }
    }

    /// How an input must be answered.
    enum Expectation: Sendable {
        /// Not JSON (or not an object where one is required): exactly 400.
        case malformed
        /// A value of the wrong type: a 4xx.
        case rejected
        /// Maybe acceptable: a 2xx or a 4xx.
        case either
    }

    /// A hostile JSON value, as raw text.
    struct Hostile: Sendable {
        let name: String
        let raw: [UInt8]
        let kind: Expectation

        init(_ name: String, _ raw: String, _ kind: Expectation) {
            self.name = name
            self.raw = Array(raw.utf8)
            self.kind = kind
        }

        init(_ name: String, bytes: [UInt8], _ kind: Expectation) {
            self.name = name
            self.raw = bytes
            self.kind = kind
        }
    }

    static let wrongTypes: Set<String> = [
        "number", "object", "array", "true", "huge integer", "negative", "zero", "fraction",
    ]

    static let hostileValues: [Hostile] = [
        Hostile("1e400", "1e400", .malformed),
        Hostile("-1e400", "-1e400", .malformed),
        Hostile("lone high surrogate", #""\ud800""#, .malformed),
        Hostile("lone low surrogate", #""x\udc00y""#, .malformed),
        Hostile("invalid UTF-8", bytes: [0x22, 0xC3, 0x28, 0xFF, 0x22], .malformed),
        Hostile("raw control character", "\"a\u{1}b\"", .malformed),
        Hostile("number", "42", .rejected),
        Hostile("object", #"{"a":1}"#, .rejected),
        Hostile("array", "[1,2]", .rejected),
        Hostile("true", "true", .rejected),
        Hostile("huge integer", "99999999999999999999", .rejected),
        Hostile("negative", "-1", .rejected),
        Hostile("zero", "0", .rejected),
        Hostile("fraction", "1.5", .rejected),
        Hostile("null", "null", .either),
        Hostile("quotes", #""\"'\"'\"\"''""#, .either),
        Hostile("backslashes", #""\\\\\\ \\\"""#, .either),
        Hostile("SQL", #""'; DROP TABLE users; --""#, .either),
        Hostile("SQL in double quotes", #""\"; DELETE FROM businesses WHERE \"1\"=\"1""#, .either),
        Hostile("NUL bytes", #""a\u0000b\u0000""#, .either),
        Hostile("escaped controls", #""\u0001\u001f\n\r\t\b\f""#, .either),
        Hostile("emoji", "\"🍔😀👩‍👩‍👧 café\"", .either),
        Hostile("escaped emoji", #""\ud83c\udf54""#, .either),
        Hostile("100 KB", "\"" + String(repeating: "a", count: 100_000) + "\"", .either),
        Hostile("100 KB of quotes", "\"" + String(repeating: "\\\"", count: 50_000) + "\"", .either),
        Hostile("empty string", #""""#, .either),
        Hostile("placeholder braces", #""{{first_name}} }} {{""#, .either),
    ]

    // MARK: - Running the table

    /// A Herald with a business, a signed-in user and a way to send any body to any endpoint.
    final class Harness: @unchecked Sendable {
        let fixture: ServerFixture
        let app: MobileTestClient
        let http: TestHTTPClient
        let locationID: Int64
        /// A live install signing the device calls, and a sandbox one whose code the admin approves.
        let phone: DeviceTestClient
        let tester: DeviceTestClient
        let identityKey: String
        var serial = 0

        init() throws {
            fixture = try ServerFixture()
            app = try fixture.signedUp("ann@example.com")
            try fixture.news(to: app.userID!, count: 2)
            let location = try fixture.herald.admin(
                "POST", "/api/admin/businesses/\(fixture.business.id)/locations", json: #"{"name":"Brooklyn Location"}"#
            )
            locationID = try #require(location.value?["id"]?.int64Value, "\(location)")
            phone = try fixture.install("harness-phone")
            tester = try fixture.install("harness-tester", sandbox: true)
            http = fixture.herald.client()
            http.timeout = 10
            let key = try fixture.herald.admin("GET", "/api/admin/businesses/\(fixture.business.id)/identity-key")
            identityKey = try #require(key.value?["identity_key"]?.stringValue, "\(key)")
        }

        func context() -> Context {
            serial += 1
            return Context(
                businessID: fixture.business.id, userID: app.userID!, locationID: locationID, serial: serial,
                apiKey: fixture.business.apiKey,
                approvalCode: tester.testDevice?["approval_code"]?.stringValue ?? "", identityKey: identityKey)
        }

        /// Sends `body` (a mobile body gets the digest a correct app computes over it).
        func send(_ endpoint: Endpoint, target: String? = nil, body: [UInt8]) throws -> TestHTTPClient.Response {
            let target = target ?? endpoint.target(context())
            var headers: [(String, String)] = [("Content-Type", "application/json")]
            switch endpoint.access {
            case .admin:
                headers.append(("Authorization", "Bearer \(fixture.herald.adminToken)"))
            case .pos:
                headers.append(("Authorization", "Bearer \(fixture.business.posKey)"))
            case .mobile, .signedIn:
                headers.append(
                    (
                        "x-pch-digest",
                        MobileTestClient.digest(target: target, body: body, secret: fixture.business.secret)
                    ))
                if endpoint.access == .signedIn, let token = app.accessToken {
                    headers.append(("Authorization", "Bearer \(token)"))
                }
            case .install:
                break
            case .device:
                // Signed correctly over whatever the body is: the body itself is what is tried.
                return try phone.call(endpoint.method, target, body: body)
            }
            return try http.request(endpoint.method, target, headers: headers, body: body)
        }

        /// The endpoint's good body with `slot` replaced by `raw`.
        func body(_ endpoint: Endpoint, replacing slot: Slot, with raw: [UInt8]) -> [UInt8] {
            var json = endpoint.body(context())
            if endpoint.access == .mobile || endpoint.access == .signedIn {
                json = .object([("client", .string(fixture.business.client))] + (json.objectValue ?? []))
            }
            json = json.replacing(slot.path[...], with: .string(BadInputTests.sentinel))
            let text = json.encoded
            let marker = JSON.string(BadInputTests.sentinel).encoded
            guard let range = text.firstRange(of: marker) else { return text }
            return Array(text[..<range.lowerBound]) + raw + Array(text[range.upperBound...])
        }

        func expectHealthy(sourceLocation: SourceLocation = #_sourceLocation) throws {
            let health = try fixture.herald.client().request("GET", "/healthz")
            #expect(health.status == 200, sourceLocation: sourceLocation)
            #expect(health.text == #"{"status":"ok"}"#, sourceLocation: sourceLocation)
        }
    }

    static let sentinel = "\u{1}hostile\u{1}"

    /// Checks one answer against what the input deserved.
    static func check(
        _ response: TestHTTPClient.Response, _ expectation: Expectation, _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            response.status < 500, "\(context): \(response.status) \(response.text.prefix(300))",
            sourceLocation: sourceLocation)
        switch expectation {
        case .malformed:
            #expect(
                response.status == 400, "\(context): \(response.status) \(response.text.prefix(300))",
                sourceLocation: sourceLocation)
        case .rejected:
            #expect(
                (400..<500).contains(response.status), "\(context): \(response.status) \(response.text.prefix(300))",
                sourceLocation: sourceLocation)
        case .either:
            #expect(
                (200..<300).contains(response.status) || (400..<500).contains(response.status),
                "\(context): \(response.status)", sourceLocation: sourceLocation)
        }
        #expect(
            response.isJSON, "\(context): content-type \(response.header("content-type") ?? "none")",
            sourceLocation: sourceLocation)
        // Foundation's parser, independent of Herald's, must read the body.
        #expect(
            (try? JSONSerialization.jsonObject(with: Data(response.body), options: [.fragmentsAllowed])) != nil,
            "\(context): not JSON: \(response.text.prefix(300))", sourceLocation: sourceLocation)
        if (400..<500).contains(response.status) {
            #expect(
                response.errorFields != nil, "\(context): not {\"errors\":{…}}: \(response.text.prefix(300))",
                sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: endpoints)
    func malformedBodiesAre400(_ endpoint: Endpoint) throws {
        let harness = try Harness()
        for (name, bytes) in Self.malformedBodies {
            let response = try harness.send(endpoint, body: bytes)
            Self.check(response, .malformed, "\(endpoint.testDescription) with \(name)")
            if response.status == 400 {
                #expect(response.errorFields?.keys.contains("base") == true, "\(name): \(response)")
            }
        }
        try harness.expectHealthy()
    }

    @Test(arguments: endpoints)
    func hostileFieldValuesAreRefusedCleanly(_ endpoint: Endpoint) throws {
        let harness = try Harness()
        for slot in endpoint.slots {
            for value in Self.hostileValues {
                let expectation: Expectation =
                    value.kind == .rejected && slot.lax.contains(value.name) ? .either : value.kind
                let body = harness.body(endpoint, replacing: slot, with: value.raw)
                let response = try harness.send(endpoint, body: body)
                Self.check(
                    response, expectation,
                    "\(endpoint.testDescription) \(slot.path.joined(separator: ".")) = \(value.name)")
            }
        }
        try harness.expectHealthy()
    }

    @Test func posCallsWithoutTheirKeyAre401() throws {
        let harness = try Harness()
        for endpoint in Self.endpoints where endpoint.access == .pos {
            let body = endpoint.body(harness.context()).encoded
            for authorization in [nil, "Bearer pos_wrong", "Bearer \(harness.fixture.herald.adminToken)"] {
                var headers = [("Content-Type", "application/json")]
                if let authorization { headers.append(("Authorization", authorization)) }
                let response = try harness.http.request(
                    endpoint.method, endpoint.target(harness.context()), headers: headers, body: body)
                Self.check(response, .rejected, "\(endpoint.testDescription) with \(authorization ?? "no key")")
                #expect(response.status == 401, "\(endpoint.testDescription): \(response)")
            }
        }
        #expect(
            try harness.fixture.store.read {
                try $0.redemptions.all(businessID: harness.fixture.business.id, transactionID: "R-1")
            }.isEmpty
        )
    }

    @Test func theGoodBodiesOfTheTableAreAccepted() throws {
        // The table is only meaningful if its unmodified bodies get past validation.
        for endpoint in Self.endpoints where !endpoint.path.hasSuffix("logout") {
            let harness = try Harness()
            var json = endpoint.body(harness.context())
            if endpoint.access == .mobile || endpoint.access == .signedIn {
                json = .object([("client", .string(harness.fixture.business.client))] + (json.objectValue ?? []))
            }
            let response = try harness.send(endpoint, body: json.encoded)
            #expect((200..<300).contains(response.status), "\(endpoint.testDescription): \(response)")
        }
    }
}

extension JSON {
    /// This value with the value at `path` (object keys, or array indices) replaced by `value`; a missing key is added.
    func replacing(_ path: ArraySlice<String>, with value: JSON) -> JSON {
        guard let key = path.first else { return value }
        switch self {
        case .object(var pairs):
            if let index = pairs.lastIndex(where: { $0.key == key }) {
                pairs[index].value = pairs[index].value.replacing(path.dropFirst(), with: value)
            } else {
                pairs.append((key: key, value: JSON.object([]).replacing(path.dropFirst(), with: value)))
            }
            return .object(pairs)
        case .array(var items):
            guard let index = Int(key), items.indices.contains(index) else { return self }
            items[index] = items[index].replacing(path.dropFirst(), with: value)
            return .array(items)
        default:
            return self
        }
    }
}
