import Foundation
import HeraldModel
import HeraldAPI
import HeraldStore
import HeraldTesting
import Testing

/// One Herald with one business, and the calls the API tests repeat.
final class ServerFixture: @unchecked Sendable {
    /// The running Herald.
    let herald: LiveHerald
    /// The business the apps sign as.
    let business: LiveHerald.BusinessKeys

    /// Its store, for assertions about devices and events.
    var store: Store { herald.application.store }

    /// Starts a Herald (delivery workers off: these tests look at the queue, not at sends) on `clock` and creates one
    /// business.
    init(
        businessName: String = "Burger Co", clock: WallClock = .system, transport: LiveHerald.Transport = .inProcess,
        configure: (inout HeraldConfiguration) -> Void = { _ in }
    ) throws {
        herald = try LiveHerald(transport: transport, clock: clock) { configuration in
            configuration.delivery.enabled = false
            configure(&configuration)
        }
        business = try herald.createBusiness(name: businessName)
    }

    /// A new app connection signing as the business.
    func app(deviceID: String? = nil) -> MobileTestClient { herald.mobileClient(for: business, deviceID: deviceID) }

    /// A user signed up through the mobile API; the test stops unless sign-up answered 200.
    func signedUp(
        _ email: String, password: String = "password123", firstName: String = "Ann", token: String? = nil,
        android: Bool = false, deviceID: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> MobileTestClient {
        let app = app(deviceID: deviceID)
        let response = try app.signUp(
            email: email, password: password, firstName: firstName, token: token, android: android)
        try #require(response.status == 200, "sign-up failed: \(response)", sourceLocation: sourceLocation)
        try #require(app.userID != nil, sourceLocation: sourceLocation)
        return app
    }

    /// `POST /api/admin/businesses/{id}/notifications` with `fields` as the body.
    func postNews(_ fields: [(String, JSON)], businessID: Int64? = nil) throws -> TestHTTPClient.Response {
        let body = JSON.object(fields.map { (key: $0.0, value: $0.1) })
        return try herald.admin(
            "POST", "/api/admin/businesses/\(businessID ?? business.id)/notifications", json: body.encodedString)
    }

    /// Sends a news item to `userIDs`; the test stops unless it answered 202. Returns the notification ids.
    @discardableResult
    func news(
        to userIDs: [Int64], title: String = "Our new menu", body: String = "Try the new burger today!",
        extra: [(String, JSON)] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [Int64] {
        let response = try postNews(
            [("user_ids", .array(userIDs.map { .int($0) })), ("title", .string(title)), ("body", .string(body))] + extra
        )
        try #require(response.status == 202, "news failed: \(response)", sourceLocation: sourceLocation)
        let ids = try #require(response.value?["notification_ids"]?.arrayValue, sourceLocation: sourceLocation)
        return ids.compactMap(\.int64Value)
    }

    /// The delivery jobs of notification `id`, through the admin API.
    func deliveries(notificationID id: Int64, sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSON] {
        let response = try herald.admin("GET", "/api/admin/businesses/\(business.id)/deliveries?notification_id=\(id)")
        try #require(response.status == 200, "deliveries failed: \(response)", sourceLocation: sourceLocation)
        #expect(response.value?["notification_id"] == .int(id), sourceLocation: sourceLocation)
        return try #require(response.value?["deliveries"]?.arrayValue, sourceLocation: sourceLocation)
    }

    /// Sends one news item to `userID` and answers how many delivery jobs it got (one per device holding a token).
    func deliveryCount(forNewsTo userID: Int64, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let ids = try news(to: [userID], sourceLocation: sourceLocation)
        try #require(ids.count == 1, sourceLocation: sourceLocation)
        return try deliveries(notificationID: ids[0], sourceLocation: sourceLocation).count
    }
}

extension ServerFixture {
    /// Sends `count` news items to `userID` (one call each), failing the test on any other answer than 202.
    @discardableResult
    func news(to userID: Int64, count: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> [Int64] {
        try (1...count).flatMap { index in
            try news(to: [userID], title: "News \(index)", body: "Item \(index)", sourceLocation: sourceLocation)
        }
    }
}

extension MobileTestClient {
    /// `GET /api2/mobile/users/profile`, the client in the query.
    func profile() throws -> TestHTTPClient.Response {
        try call("GET", "/api2/mobile/users/profile?client=\(business.client)")
    }

    /// `PUT /api2/mobile/users` with `user` as the user object.
    func update(_ user: [(String, JSON)]) throws -> TestHTTPClient.Response {
        try call("PUT", "/api2/mobile/users", json: [("user", .object(user.map { (key: $0.0, value: $0.1) }))])
    }

    /// `DELETE /api2/mobile/users/logout` with the client in a JSON body, as Punchh apps send it.
    func logOut() throws -> TestHTTPClient.Response {
        try call("DELETE", "/api2/mobile/users/logout", json: [])
    }

    /// `GET /api2/mobile/notifications` with `query` after the client.
    func inbox(_ query: String = "") throws -> TestHTTPClient.Response {
        try call("GET", "/api2/mobile/notifications?client=\(business.client)" + (query.isEmpty ? "" : "&" + query))
    }

    /// The inbox entries (all of them, up to 100); the test stops unless the listing answered 200.
    func entries(sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSON] {
        let response = try inbox("qty=100")
        try #require(response.status == 200, "\(response)", sourceLocation: sourceLocation)
        return try #require(response.value?.arrayValue, sourceLocation: sourceLocation)
    }

    /// `PUT /api2/mobile/offers/mark_read`.
    func markRead(_ ids: JSON, eventType: JSON = "read_through_app") throws -> TestHTTPClient.Response {
        try call(
            "PUT", "/api2/mobile/offers/mark_read", json: [("event_type", eventType), ("user_notifications", ids)])
    }
}

extension TestHTTPClient.Response {
    /// The body parsed as JSON (Herald's parser keeps integer and boolean types apart).
    var value: JSON? { try? JSON.parse(body) }

    /// `{"errors":{field:[messages]}}` as a dictionary; nil when the body has any other shape.
    var errorFields: [String: [String]]? {
        guard let pairs = value?.objectValue, pairs.count == 1, pairs[0].key == "errors",
            let errors = pairs[0].value.objectValue, !errors.isEmpty
        else { return nil }
        var fields: [String: [String]] = [:]
        for pair in errors {
            guard let messages = pair.value.arrayValue, !messages.isEmpty else { return nil }
            let texts = messages.compactMap(\.stringValue)
            guard texts.count == messages.count, texts.allSatisfy({ !$0.isEmpty }) else { return nil }
            fields[pair.key] = texts
        }
        return fields
    }

    /// True when the content type says JSON.
    var isJSON: Bool { header("content-type")?.hasPrefix("application/json") == true }
}

/// Expects `response` to be `status` with Punchh's error shape naming exactly `fields`.
func expectError(
    _ response: TestHTTPClient.Response, _ status: Int, _ fields: Set<String>,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(response.status == status, "\(response)", sourceLocation: sourceLocation)
    #expect(
        response.isJSON, "content-type \(response.header("content-type") ?? "none")", sourceLocation: sourceLocation)
    #expect(response.errorFields.map { Set($0.keys) } == fields, "\(response)", sourceLocation: sourceLocation)
}

/// Expects `response` to be `status` with exactly this error on `field`.
func expectError(
    _ response: TestHTTPClient.Response, _ status: Int, _ field: String, _ message: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(response.status == status, "\(response)", sourceLocation: sourceLocation)
    #expect(response.isJSON, sourceLocation: sourceLocation)
    #expect(response.errorFields == [field: [message]], "\(response)", sourceLocation: sourceLocation)
}

/// A user object for sign-up.
func signUpUser(
    email: String, password: String = "password123", confirmation: String? = nil, extra: [(String, JSON)] = []
) -> JSON {
    .object(
        [
            (key: "first_name", value: JSON.string("Ann")), (key: "last_name", value: "Lee"),
            (key: "email", value: .string(email)),
            (key: "password", value: .string(password)),
            (key: "password_confirmation", value: .string(confirmation ?? password)),
        ] + extra.map { (key: $0.0, value: $0.1) })
}
