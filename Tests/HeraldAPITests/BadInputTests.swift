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

    private static let p8 = P256PrivateKey.generate().pemRepresentation
    private static let rsa = RSAPrivateKey.generate().pemRepresentation

    static let coreEndpoints: [Endpoint] = [
        Endpoint(
            method: "POST", path: "/api2/mobile/users", access: .mobile,
            slots: [
                Slot("client"), Slot("user"), Slot("user.email"), Slot("user.password"),
                Slot("user.password_confirmation"),
                Slot("user.first_name"), Slot("user.last_name"), Slot("user.phone"), Slot("user.apn_token"),
                Slot("user.gcm_token"),
            ],
            body: { context in ["user": signUpUser(email: "new\(context.serial)@example.com")] }),
        Endpoint(
            method: "POST", path: "/api2/mobile/users/login", access: .mobile,
            slots: [
                Slot("client"), Slot("user"), Slot("user.email"), Slot("user.password"), Slot("user.apn_token"),
                Slot("user.gcm_token"),
            ],
            body: { _ in ["user": ["email": "ann@example.com", "password": "password123"]] }),
        Endpoint(
            method: "PUT", path: "/api2/mobile/users", access: .signedIn,
            slots: [
                // An object with unknown keys is a valid (empty) update.
                Slot("client"), Slot("user", lax: ["object"]), Slot("user.first_name"), Slot("user.last_name"),
                Slot("user.email"),
                Slot("user.phone"), Slot("user.password"),
                // Only read along with a new password.
                Slot("user.current_password", lax: BadInputTests.wrongTypes), Slot("user.apn_token"),
                Slot("user.gcm_token"),
            ],
            body: { _ in ["user": ["first_name": "Ann"]] }),
        Endpoint(
            method: "GET", path: "/api2/mobile/users/profile", access: .signedIn, slots: [Slot("client")],
            body: { _ in [:] }),
        Endpoint(
            method: "GET", path: "/api2/mobile/notifications", access: .signedIn,
            // 42 is a fine quantity and page.
            slots: [Slot("client"), Slot("qty", lax: ["number"]), Slot("page", lax: ["number"])],
            body: { _ in ["qty": 5, "page": 1] }),
        Endpoint(
            method: "DELETE", path: "/api2/mobile/notifications/1", access: .signedIn, slots: [Slot("client")],
            body: { _ in [:] }),
        Endpoint(
            method: "PUT", path: "/api2/mobile/offers/mark_read", access: .signedIn,
            slots: [
                // Objects and arrays as event_type are taken as read_through_app (see MobileInboxTests.aNonStringEventTypeIs422);
                // a lone number or an array is a valid id list.
                Slot("client"), Slot("event_type", lax: ["object", "array"]),
                Slot("user_notifications", lax: ["number", "negative", "zero", "array"]),
                Slot("rewards", lax: ["number", "negative", "zero", "array"]),
            ],
            body: { _ in ["event_type": "read_through_app", "user_notifications": "1,2", "rewards": ""] }),
        Endpoint(
            method: "DELETE", path: "/api2/mobile/users/logout", access: .signedIn, slots: [Slot("client")],
            body: { _ in [:] }),
        Endpoint(
            method: "POST", path: "/api/admin/businesses", access: .admin, slots: [Slot("name")],
            body: { _ in ["name": "Taco Co"] }),
        Endpoint(
            method: "PUT", path: "/api/admin/businesses/{business}/apns", access: .admin,
            slots: [Slot("key_p8"), Slot("key_id"), Slot("team_id"), Slot("topic"), Slot("environment")],
            body: { _ in
                [
                    "key_p8": .string(BadInputTests.p8), "key_id": "ABC123DEFG", "team_id": "TEAM123456",
                    "topic": "com.burgerco.app", "environment": "sandbox",
                ]
            }),
        Endpoint(
            method: "PUT", path: "/api/admin/businesses/{business}/fcm", access: .admin,
            slots: [
                Slot("service_account"), Slot("service_account.type"), Slot("service_account.project_id"),
                Slot("service_account.client_email"), Slot("service_account.private_key"),
                Slot("service_account.token_uri"),
            ],
            body: { _ in
                [
                    "service_account": [
                        "type": "service_account", "project_id": "burger-co", "private_key": .string(BadInputTests.rsa),
                        "client_email": "herald@burger-co.iam.gserviceaccount.com",
                        "token_uri": "https://oauth2.googleapis.com/token",
                    ]
                ]
            }),
        Endpoint(
            method: "PUT", path: "/api/admin/businesses/{business}/templates/checkin", access: .admin,
            slots: [
                Slot("title"), Slot("subtitle"), Slot("body"), Slot("sound"), Slot("enabled", lax: ["true"]),
                Slot("media"),
            ],
            body: { _ in ["title": "Points Earned", "body": "You've got {{points}} points!", "enabled": true] }),
        Endpoint(
            method: "POST", path: "/api/admin/businesses/{business}/templates/checkin/preview", access: .admin,
            // Values are strings or whole numbers (the preview is a sample; an empty object is one too).
            slots: [
                Slot("values", lax: ["object"]), Slot("values.points", lax: ["number", "negative", "zero"]),
                Slot("template", lax: ["object"]),
            ],
            body: { _ in ["values": ["points": 12], "template": ["title": "Points"]] }),
        Endpoint(
            method: "POST", path: "/api/admin/surveys/validate", access: .admin,
            // Ids may be whole numbers ≥ 0 (read as their digits); an answer's value may be anything (the validator
            // says what is wrong with it).
            slots: [
                Slot("questions"), Slot("questions.0"), Slot("questions.0.id", lax: ["number", "zero"]),
                Slot("questions.0.text"), Slot("questions.0.type"), Slot("answers"), Slot("answers.0"),
                Slot("answers.0.question_id", lax: ["number", "zero"]),
                Slot("answers.0.value", lax: BadInputTests.wrongTypes),
            ],
            body: { _ in
                [
                    "questions": [["id": "visit", "text": "How was it?", "type": "rating", "required": true]],
                    "answers": [["question_id": "visit", "value": 4]],
                ]
            }),
        Endpoint(
            method: "POST", path: "/api/admin/businesses/{business}/locations", access: .admin,
            slots: [Slot("name"), Slot("store_number", lax: ["number", "negative", "zero"])],
            body: { _ in ["name": "Brooklyn Location", "store_number": "42"] }),
        Endpoint(
            method: "POST", path: "/api/admin/businesses/{business}/notifications", access: .admin,
            slots: [
                Slot("user_ids"), Slot("user_ids.0"), Slot("title"), Slot("subtitle"), Slot("body"), Slot("media"),
            ],
            body: { context in ["user_ids": [.int(context.userID)], "title": "Our new menu", "body": "Try it"] }),
        Endpoint(
            method: "POST", path: "/api/pos/checkins", access: .pos,
            slots: [
                // Numbers are what points take; a POS may number its transactions.
                Slot("user_id"), Slot("location_id"), Slot("points", lax: ["number", "zero"]), Slot("source"),
                Slot("transaction_id", lax: ["number", "negative", "zero"]),
            ],
            body: { context in
                [
                    "user_id": .int(context.userID), "location_id": .int(context.locationID), "points": 12,
                    "source": "qr", "transaction_id": .string("T-\(context.serial)"),
                ]
            }),
        Endpoint(
            method: "POST", path: "/api/pos/redemptions", access: .pos,
            slots: [
                Slot("user_id"), Slot("location_id"), Slot("discount", lax: ["number", "zero", "fraction"]),
                Slot("transaction_id", lax: ["number", "negative", "zero"]),
            ],
            body: { context in
                [
                    "user_id": .int(context.userID), "location_id": .int(context.locationID), "discount": 2.5,
                    "transaction_id": .string("R-\(context.serial)"),
                ]
            }),
        Endpoint(
            method: "POST", path: "/api/webhooks/gift_cards", access: .pos,
            slots: [Slot("uuid"), Slot("user_id"), Slot("balance", lax: ["number", "zero", "fraction"])],
            body: { context in ["uuid": "card-1", "user_id": .int(context.userID), "balance": 25] }),
        Endpoint(
            method: "POST", path: "/api/admin/businesses/{business}/campaigns", access: .admin,
            slots: [
                Slot("name"), Slot("message"), Slot("message.headline"), Slot("message.body"),
                Slot("message.media"), Slot("message.media.type"), Slot("message.media.url"),
                Slot("message.media.thumbnail_url"), Slot("message.cta"), Slot("message.cta.label"),
                Slot("message.cta.url"), Slot("message.survey_id"), Slot("audience"), Slot("audience.user_ids"),
                Slot("channels"), Slot("trigger"), Slot("trigger.type"), Slot("limits"),
                // 42 (and 0 seconds) are fine limits.
                Slot("limits.cooldown_seconds", lax: ["number", "zero"]),
                Slot("limits.max_per_install", lax: ["number"]),
                Slot("limits.throttle_per_minute", lax: ["number"]), Slot("limits.quiet_hours"),
                Slot("limits.quiet_hours.start"), Slot("limits.quiet_hours.end"), Slot("limits.frequency_cap"),
                Slot("limits.frequency_cap.count", lax: ["number"]),
                Slot("limits.frequency_cap.period_hours", lax: ["number"]), Slot("sandbox", lax: ["true"]),
            ],
            body: { context in
                [
                    "name": "Winter", "channels": ["push", "pull", "inbox"],
                    "message": [
                        "headline": "Soup's on", "body": "Tomato soup today",
                        "media": [
                            "type": "image", "url": "https://cdn.example.com/soup.jpg",
                            "thumbnail_url": "https://cdn.example.com/t.jpg",
                        ],
                        "cta": ["label": "Order", "url": "https://example.com/order"],
                    ],
                    "audience": ["user_ids": [.int(context.userID)]], "trigger": ["type": "now"],
                    "limits": [
                        "cooldown_seconds": 60, "max_per_install": 3, "throttle_per_minute": 100,
                        "quiet_hours": ["start": "22:00", "end": "08:00"],
                        "frequency_cap": ["count": 5, "period_hours": 24],
                    ],
                    "sandbox": false,
                ]
            }),
        Endpoint(
            method: "POST", path: "/api/admin/businesses/{business}/geofences", access: .admin,
            slots: [
                // Any latitude and longitude in range is a place; 42 meters is a radius.
                Slot("name"), Slot("shape"), Slot("center"),
                Slot("center.latitude", lax: ["number", "zero", "negative", "fraction"]),
                Slot("center.longitude", lax: ["number", "zero", "negative", "fraction"]),
                Slot("radius_meters", lax: ["number"]), Slot("location_id"),
            ],
            body: { context in
                [
                    "name": "Brooklyn", "shape": "circle", "center": ["latitude": 40.6782, "longitude": -73.9442],
                    "radius_meters": 150, "location_id": .int(context.locationID),
                ]
            }),
        Endpoint(
            method: "POST", path: "/api/admin/businesses/{business}/segments", access: .admin,
            slots: [
                Slot("name"), Slot("filter"), Slot("filter.all"), Slot("filter.all.0"), Slot("filter.all.0.attribute"),
                Slot("filter.all.0.op"),
                // Any string, number or boolean is a value to compare with.
                Slot("filter.all.0.value", lax: ["number", "true", "huge integer", "negative", "zero", "fraction"]),
                Slot("filter.all.1.segment"), Slot("filter.all.2.platform"),
                Slot("filter.all.3.last_seen_within_days", lax: ["number"]), Slot("filter.all.4.not"),
                Slot("filter.all.5.attribute"), Slot("filter.all.5.value", lax: ["array"]),
                Slot("filter.all.5.value.0", lax: ["number", "true", "huge integer", "negative", "zero", "fraction"]),
            ],
            body: { context in
                [
                    "name": .string("Segment \(context.serial)"),
                    "filter": [
                        "all": [
                            ["attribute": "tier", "op": "eq", "value": "gold"], ["segment": "beta"],
                            ["platform": "ios"],
                            ["last_seen_within_days": 30], ["not": ["attribute": "city", "op": "exists"]],
                            ["attribute": "age", "op": "in", "value": [30, "31"]],
                        ]
                    ],
                ]
            }),
        Endpoint(
            method: "POST", path: "/api/admin/businesses/{business}/segments/count", access: .admin,
            slots: [
                Slot("filter"), Slot("filter.any"), Slot("filter.any.0.attribute"), Slot("filter.any.0.op"),
                Slot("filter.any.0.value", lax: ["number", "huge integer", "negative", "zero", "fraction"]),
            ],
            body: { _ in ["filter": ["any": [["attribute": "age", "op": "gt", "value": 30]]]] }),
    ]

    /// Every endpoint of the table: the Punchh, admin and POS ones, and the device API's.
    static let endpoints: [Endpoint] = coreEndpoints + deviceEndpoints

    /// The device API's endpoints that read a body, and their admin side.
    static let deviceEndpoints: [Endpoint] = [
        Endpoint(
            method: "POST", path: "/api/v1/installs", access: .install,
            slots: [
                Slot("api_key"), Slot("install_id"), Slot("platform"), Slot("push_token"), Slot("push_token_type"),
                Slot("apns_environment"), Slot("app_version"), Slot("os_version"), Slot("device_model"),
                Slot("locale"), Slot("timezone"), Slot("sdk_version"), Slot("permissions"),
                Slot("permissions.notifications", lax: ["true"]), Slot("permissions.location"), Slot("segments"),
                Slot("segments.0"),
            ],
            body: { context in
                .object(
                    [("api_key", .string(context.apiKey)), ("install_id", .string("hostile-\(context.serial)"))]
                        + DeviceTestClient.detailFields() + [("segments", ["vip"])])
            }),
        Endpoint(
            method: "PUT", path: "/api/v1/installs/current", access: .device,
            slots: [
                Slot("platform"), Slot("push_token"), Slot("push_token_type"), Slot("apns_environment"),
                Slot("app_version"), Slot("os_version"), Slot("device_model"), Slot("locale"), Slot("timezone"),
                Slot("sdk_version"), Slot("permissions"), Slot("permissions.notifications", lax: ["true"]),
                Slot("permissions.location"), Slot("segments"), Slot("segments.0"),
            ],
            body: { _ in .object(DeviceTestClient.detailFields() + [("segments", ["vip"])]) }),
        Endpoint(
            method: "PUT", path: "/api/v1/device/user", access: .device,
            slots: [Slot("external_id"), Slot("identity_token")],
            body: { context in
                let token = Hex.encode(
                    HMACSHA256.authenticationCode(
                        for: Array("hostile-user".utf8), key: Array(context.identityKey.utf8)))
                return ["external_id": "hostile-user", "identity_token": .string(token)]
            }),
        Endpoint(
            method: "PUT", path: "/api/v1/device/segments", access: .device,
            slots: [Slot("segments"), Slot("segments.0"), Slot("segments.1")],
            body: { _ in ["segments": ["vip", "beta"]] }),
        Endpoint(
            method: "POST", path: "/api/v1/events", access: .device,
            // A hostile value inside an event is that event's rejection in a 202, not the call's.
            slots: [
                // A list of anything is a batch (its items judged one by one).
                Slot("events", lax: ["array"]), Slot("events.0", lax: BadInputTests.wrongTypes),
                Slot("events.0.id", lax: BadInputTests.wrongTypes),
                Slot("events.0.type", lax: BadInputTests.wrongTypes),
                Slot("events.0.occurred_at", lax: BadInputTests.wrongTypes),
                Slot("events.0.notification_id", lax: BadInputTests.wrongTypes),
                Slot("events.0.data", lax: BadInputTests.wrongTypes),
                Slot("events.0.data.name", lax: BadInputTests.wrongTypes),
                Slot("events.0.data.properties", lax: BadInputTests.wrongTypes),
                Slot("events.1.data.answers", lax: BadInputTests.wrongTypes),
                Slot("events.1.data.answers.0.question_id", lax: BadInputTests.wrongTypes),
                Slot("events.1.data.answers.0.value", lax: BadInputTests.wrongTypes),
            ],
            body: { _ in
                let now = WallClock.system.now()
                return [
                    "events": [
                        DeviceEvent(
                            id: UUIDString.random(), type: .custom, occurredAt: now,
                            data: DeviceEvent.customData(name: "cart.added", properties: [("items", 2)])
                        ).json,
                        DeviceEvent(
                            id: UUIDString.random(), type: .surveySubmitted, occurredAt: now, notificationID: "1",
                            data: ["answers": [["question_id": "stars", "value": 4]]]
                        ).json,
                    ]
                ]
            }),
        Endpoint(
            method: "POST", path: "/api/admin/businesses/{business}/api_keys", access: .admin, slots: [Slot("keys")],
            body: { _ in ["keys": ["sandbox"]] }),
        Endpoint(
            method: "POST", path: "/api/admin/businesses/{business}/identity-keys", access: .admin, slots: [],
            body: { _ in [:] }),
        Endpoint(
            method: "POST", path: "/api/admin/businesses/{business}/test-devices", access: .admin,
            slots: [Slot("approval_code")], body: { context in ["approval_code": .string(context.approvalCode)] }),
    ]

    /// Whole bodies that are not a JSON object.
    static let malformedBodies: [(name: String, bytes: [UInt8])] = [
        ("{", Array("{".utf8)), ("[1,2", Array("[1,2".utf8)), ("nul", Array("nul".utf8)),
        ("lone surrogate", Array(#""\ud800""#.utf8)),
        ("client lone surrogate", Array(#"{"client":"\ud800"}"#.utf8)),
        ("10,000 [", Array(repeating: UInt8(ascii: "["), count: 10_000)),
        (
            "10,000 balanced []",
            Array(repeating: UInt8(ascii: "["), count: 10_000) + Array(repeating: UInt8(ascii: "]"), count: 10_000)
        ),
        ("10,000 nested objects", Array(String(repeating: #"{"a":"#, count: 10_000).utf8)),
        (
            "deep user",
            Array(
                (#"{"client":"x","user":"# + String(repeating: "[", count: 10_000)
                    + String(repeating: "]", count: 10_000) + "}").utf8)
        ),
        ("trailing comma", Array(#"{"a":1,}"#.utf8)), ("single quotes", Array("{'a':1}".utf8)),
        ("extra brace", Array(#"{"a":1}}"#.utf8)),
        ("bare key", Array("{a:1}".utf8)), ("invalid UTF-8 key", [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D]),
        ("top-level 1e400", Array("1e400".utf8)), ("nested 1e400", Array(#"{"a":1e400}"#.utf8)),
        ("raw NUL in string", Array("{\"a\":\"\u{0}\"}".utf8)), ("raw NUL outside", [0x7B, 0x00, 0x7D]),
        ("leading zero", Array(#"{"a":01}"#.utf8)), ("NaN", Array(#"{"a":NaN}"#.utf8)),
        ("comment", Array("{/* hi */}".utf8)),
        ("array", Array("[]".utf8)), ("array of object", Array(#"[{"client":"x"}]"#.utf8)),
        ("string", Array(#""string""#.utf8)),
        ("number", Array("42".utf8)), ("null", Array("null".utf8)), ("true", Array("true".utf8)),
        ("UTF-16", Array(#"{"a":1}"#.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }),
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
        private var serial = 0

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
