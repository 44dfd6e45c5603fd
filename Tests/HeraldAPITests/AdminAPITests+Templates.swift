import Foundation
import HeraldCrypto
import HeraldModel
import HeraldAPI
import HeraldTesting
import Testing

/// The admin API on templates.
extension AdminAPITests {
    // MARK: - Templates

    @Test func everyContractEventHasADefaultTemplate() throws {
        let fixture = try ServerFixture()
        let response = try fixture.herald.admin("GET", path(fixture, "/templates"))
        #expect(response.status == 200, "\(response)")
        let templates = try #require(response.value?.arrayValue)
        let events = templates.compactMap { $0["event"]?.stringValue }
        #expect(
            Set(Self.contractEvents).isSubset(of: events), "missing: \(Set(Self.contractEvents).subtracting(events))")
        #expect(Set(events).count == events.count)
        for template in templates {
            let event = template["event"]?.stringValue ?? "?"
            #expect(template["title"]?.stringValue?.isEmpty == false, "\(event)")
            #expect(template["body"]?.stringValue?.isEmpty == false, "\(event)")
            #expect(template["enabled"] == true, "\(event)")
            #expect(template["customized"] == false, "\(event)")
            #expect(template["placeholders"]?.arrayValue?.contains("first_name") == true, "\(event)")
        }
        for event in Self.contractEvents {
            let one = try fixture.herald.admin("GET", path(fixture, "/templates/\(event)"))
            #expect(one.status == 200, "\(event): \(one)")
            #expect(one.value?["event"] == .string(event))
        }
    }

    @Test func theCheckInDefaultReadsAsTheSeed() throws {
        let fixture = try ServerFixture()
        let response = try fixture.herald.admin(
            "POST", path(fixture, "/templates/checkin/preview"),
            json: #"{"values":{"points":12,"location":"Brooklyn Location"}}"#)
        #expect(response.status == 200, "\(response)")
        #expect(response.value?["title"] == "Points Earned")
        #expect(response.value?["subtitle"] == "You've earned points!")
        #expect(response.value?["body"] == "You've got 12 points from your last visit at Brooklyn Location!")
        #expect(response.value?["sound"] == "default")

        let template = try fixture.herald.admin("GET", path(fixture, "/templates/checkin")).value
        #expect(template?["body"] == "You've got {{points}} points from your last visit at {{location}}!")
        #expect(template?["placeholders"]?.arrayValue?.contains("points") == true)
    }

    @Test func savingATemplateChangesWhatIsSent() throws {
        let fixture = try ServerFixture()
        let saved = try fixture.herald.admin(
            "PUT", path(fixture, "/templates/signup"),
            json: #"{"title":"Hey {{first_name}}!","body":"{{business}} is glad you're here, {{ first_name }}."}"#)
        #expect(saved.status == 200, "\(saved)")
        #expect(saved.value?["customized"] == true)
        #expect(saved.value?["subtitle"] == "Thanks for joining!")  // left out: kept
        #expect(
            try fixture.herald.admin("GET", path(fixture, "/templates/signup")).value?["title"] == "Hey {{first_name}}!"
        )

        let app = try fixture.signedUp("ann@example.com", firstName: "Ann")
        let welcome = try #require(try app.entries().first)
        #expect(welcome["title"] == "Hey Ann!")
        #expect(welcome["message"] == "Burger Co is glad you're here, Ann.")
    }

    @Test(arguments: ["title", "subtitle", "body"])
    func anUnknownPlaceholderIs422NamingIt(_ field: String) throws {
        let fixture = try ServerFixture()
        let body = JSON.object([(field, "You've got {{points}} points and {{favorite_color}}")]).encodedString
        let response = try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: body)
        expectError(response, 422, [field])
        #expect(response.errorFields?[field]?.first?.contains("{{favorite_color}}") == true, "\(response)")
        #expect(
            response.errorFields?[field]?.first?.contains("{{points}}") == true, "it lists the allowed placeholders")
        #expect(try fixture.herald.admin("GET", path(fixture, "/templates/checkin")).value?["customized"] == false)
    }

    @Test func aTemplateWhosePushCouldOutgrowApplesLimitIs422() throws {
        let fixture = try ServerFixture()
        // 900 bytes of text fit; with {{first_name}} and {{location}} at their longest (100 four-byte characters
        // each), and JSON's escaping of quotes, the payload could not.
        let quoted = String(repeating: "\"", count: 900)
        let body = JSON.object([
            ("title", .string(quoted)), ("subtitle", .string(quoted)),
            ("body", .string("{{first_name}}, {{location}}, {{business}}: " + quoted)),
        ]).encodedString
        let response = try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: body)
        expectError(response, 422, ["body"])
        #expect(response.errorFields?["body"]?.first?.contains("4096") == true, "\(response)")
        #expect(try fixture.herald.admin("GET", path(fixture, "/templates/checkin")).value?["customized"] == false)
        // Half as long is fine.
        let half = String(repeating: "\"", count: 300)
        let fits = JSON.object([("title", .string(half)), ("body", .string("{{first_name}} " + half))]).encodedString
        #expect(try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: fits).status == 200)
        // A location's name may be 200 characters: five of them can't fit, three can (beside that title).
        for (count, status) in [(5, 422), (3, 200)] {
            let names = JSON.object([("body", .string(String(repeating: "{{location}} ", count: count)))])
            let response = try fixture.herald.admin(
                "PUT", path(fixture, "/templates/checkin"), json: names.encodedString)
            #expect(response.status == status, "\(count) locations: \(response)")
        }
    }

    @Test func aPlaceholderOfAnotherEventIs422() throws {
        let fixture = try ServerFixture()
        // {{points}} belongs to check-ins, not to gift cards.
        let response = try fixture.herald.admin(
            "PUT", path(fixture, "/templates/gift_card"), json: #"{"body":"{{points}} points"}"#)
        expectError(response, 422, ["body"])
        #expect(response.errorFields?["body"]?.first?.contains("{{points}}") == true)
    }

    @Test(arguments: [
        "You've got {{points points", "You've got points}} now", "{{}} points", "{{ points! }}",
        "{{points}} and {{location",
    ])
    func unbalancedBracesAre422(_ text: String) throws {
        let fixture = try ServerFixture()
        let body = JSON.object([("body", .string(text))]).encodedString
        expectError(try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: body), 422, ["body"])
    }

    @Test(.bug(id: "apitests-4", "a stray }} before a valid {{placeholder}} passes template validation"))
    func aStrayClosingBraceBeforeAPlaceholderIs422() throws {
        let fixture = try ServerFixture()
        let body = JSON.object([("body", "Oops }} you've got {{points}} points")]).encodedString
        let response = try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: body)
        expectError(response, 422, ["body"])
    }

    @Test func blankTitleOrBodyAndWrongTypesAre422() throws {
        let fixture = try ServerFixture()
        expectError(
            try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: #"{"title":"  "}"#), 422,
            "title", "can't be blank")
        expectError(
            try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: #"{"body":null}"#), 422, "body",
            "can't be blank")
        expectError(
            try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: #"{"title":7}"#), 422, "title",
            "must be a string")
        expectError(
            try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: #"{"enabled":"no"}"#), 422,
            ["enabled"])
        let long = JSON.object([("title", .string(String(repeating: "x", count: 1001)))]).encodedString
        expectError(try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: long), 422, ["title"])
    }

    @Test(arguments: ["GET", "PUT"])
    func anUnknownEventIs404(_ method: String) throws {
        let fixture = try ServerFixture()
        let response =
            method == "GET"
            ? try fixture.herald.admin("GET", path(fixture, "/templates/birthday"))
            : try fixture.herald.admin("PUT", path(fixture, "/templates/birthday"), json: #"{"title":"x","body":"y"}"#)
        expectError(response, 404, ["base"])
        expectError(
            try fixture.herald.admin("POST", path(fixture, "/templates/birthday/preview"), json: "{}"), 404, ["base"])
    }

    @Test func aDisabledSignUpTemplateNotifiesNobody() throws {
        let fixture = try ServerFixture()
        let off = try fixture.herald.admin("PUT", path(fixture, "/templates/signup"), json: #"{"enabled":false}"#)
        #expect(off.status == 200, "\(off)")
        #expect(off.value?["enabled"] == false)
        let ann = try fixture.signedUp("ann@example.com", token: randomAPNsToken())
        #expect(try ann.entries().isEmpty)

        #expect(
            try fixture.herald.admin("PUT", path(fixture, "/templates/signup"), json: #"{"enabled":true}"#).status
                == 200)
        let bob = try fixture.signedUp("bob@example.com")
        #expect(try bob.entries().count == 1)
    }

    @Test("news asked for while its template is disabled is a 422 saying so, not a silent nothing")
    func aDisabledNewsTemplateSendsNoNews() throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com", token: randomAPNsToken())
        #expect(
            try fixture.herald.admin("PUT", path(fixture, "/templates/news"), json: #"{"enabled":false}"#).status == 200
        )
        let response = try fixture.postNews([("user_ids", [.int(ann.userID!)]), ("title", "Hi"), ("body", "There")])
        expectError(response, 422, ["base"])
        #expect(response.errorFields?["base"]?.first?.contains("disabled") == true, "\(response)")
        #expect(try ann.entries().count == 1)  // only the welcome
    }
}
