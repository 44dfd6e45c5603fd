import Foundation
import HeraldCrypto
import HeraldModel
import HeraldTesting
import Testing

/// The table of endpoints that read a body, with their slots and good bodies, and the malformed bodies tried on each.
extension BadInputTests {
    static let p8 = P256PrivateKey.generate().pemRepresentation
    static let rsa = RSAPrivateKey.generate().pemRepresentation

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
}
