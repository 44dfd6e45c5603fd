import Foundation
import HeraldHTTPServer
import HeraldModel
import HeraldTesting
import Testing

/// The judge every test client's answers pass through (`OpenAPIValidator`): what it accepts and what it refuses, on
/// docs/openapi.json itself and on small documents made to show one rule each.
@Suite("OpenAPI validator")
struct OpenAPIValidatorTests {
    typealias Exchange = OpenAPIValidator.Exchange

    /// A document with one operation, `GET /things/{id}`, answering `schema` as JSON with 200 and `Errors` with 404.
    static func validator(_ schema: JSON) -> OpenAPIValidator {
        let errors: JSON = ["type": "object", "required": ["errors"], "properties": ["errors": ["type": "object"]]]
        let json: (JSON) -> JSON = { ["content": ["application/json": ["schema": $0]], "description": "an answer"] }
        return OpenAPIValidator(
            document: [
                "openapi": "3.1.0",
                "paths": ["/things/{id}": ["get": ["responses": ["200": json(schema), "404": json(errors)]]]],
                "x-unrouted-responses": ["404": json(errors), "405": json(errors)],
                "x-any-request-responses": ["400": ["description": "not HTTP", "content": ["text/html": [:]]]],
            ])
    }

    static func answer(_ body: String, status: Int = 200, target: String = "/things/7", method: String? = "GET")
        -> Exchange
    {
        Exchange(
            method: method, target: target, status: status, contentType: "application/json; charset=utf-8",
            body: Array(body.utf8))
    }

    static let thing: JSON = [
        "type": "object", "required": ["id", "kind"], "additionalProperties": false,
        "properties": [
            "id": ["type": "integer", "minimum": 1], "kind": ["type": "string", "enum": ["a", "b"]],
            "at": ["type": ["string", "null"], "format": "date-time"],
            "tags": ["type": "array", "items": ["type": "string", "maxLength": 3], "maxItems": 2],
        ],
    ]

    @Test func anAnswerAsDocumentedPasses() {
        let validator = Self.validator(Self.thing)
        #expect(validator.problems(Self.answer(#"{"id":7,"kind":"a","at":"2017-02-14T07:26:55Z","tags":["x"]}"#)) == [])
        #expect(validator.problems(Self.answer(#"{"id":7,"kind":"b","at":null}"#)) == [])
        #expect(validator.problems(Self.answer(#"{"errors":{"base":["thing not found"]}}"#, status: 404)) == [])
        // HEAD is GET's, without a body to judge.
        #expect(
            validator.problems(Exchange(method: "HEAD", target: "/things/7", status: 200, contentType: nil, body: []))
                == [])
    }

    @Test(arguments: [
        (#"{"id":"7","kind":"a"}"#, "$.id: expected integer, got string \"7\""),
        (#"{"kind":"a"}"#, "$: the required \"id\" is missing"),
        (#"{"id":7,"kind":"c"}"#, "$.kind: string \"c\" is not one of [\"a\",\"b\"]"),
        (
            #"{"id":7,"kind":"a","extra":1}"#,
            "$: has \"extra\", which the document does not list (it closes the object)"
        ),
        (#"{"id":0,"kind":"a"}"#, "$.id: 0 is less than the minimum 1"),
        (#"{"id":7,"kind":"a","at":"yesterday"}"#, "$.at: \"yesterday\" is not an RFC 3339 date-time"),
        (#"{"id":7,"kind":"a","tags":["x","y","z"]}"#, "$.tags: has 3 items, more than 2"),
        (#"{"id":7,"kind":"a","tags":["long"]}"#, "$.tags[0]: is 4 characters long, more than 3"),
        (#"{"id":7,"kind":"a"#, "the body is not JSON"),
    ])
    func aBodyAgainstItsSchemaIsRefused(body: String, problem: String) {
        let problems = Self.validator(Self.thing).problems(Self.answer(body))
        #expect(problems.count == 1 && problems[0].contains(problem), "\(problems)")
    }

    @Test func aStatusRouteOrContentTypeTheDocumentLacksIsRefused() {
        let validator = Self.validator(Self.thing)
        let status = validator.problems(Self.answer(#"{"id":7,"kind":"a"}"#, status: 201))
        #expect(
            status.count == 1 && status[0].contains("status 201 is not documented for GET /things/{id}"), "\(status)")
        // An unknown path answers 404 with the document's error, never anything else.
        #expect(
            validator.problems(Self.answer(#"{"errors":{"base":["no route"]}}"#, status: 404, target: "/nope")) == [])
        let route = validator.problems(Self.answer(#"{"id":7,"kind":"a"}"#, target: "/nope"))
        #expect(route.count == 1 && route[0].contains("a path not documented"), "\(route)")
        // A known path with another method: 405 only.
        #expect(validator.problems(Self.answer(#"{"errors":{"base":["no"]}}"#, status: 405, method: "POST")) == [])
        #expect(validator.problems(Self.answer(#"{"id":7,"kind":"a"}"#, method: "POST")).count == 1)
        // A request that was not HTTP: only what the server answers before any operation.
        let garbage = Exchange(
            method: nil, target: "", status: 400, contentType: "text/html", body: Array("<html>".utf8))
        #expect(validator.problems(garbage) == [])
        #expect(
            validator.problems(Exchange(method: nil, target: "", status: 200, contentType: nil, body: [])).count == 1)
        // A content type the status does not list.
        let text = Exchange(method: "GET", target: "/things/7", status: 200, contentType: "text/plain", body: [0x41])
        #expect(validator.problems(text).count == 1)
    }

    @Test func oneOfMeansExactlyOne() {
        let validator = Self.validator(["oneOf": [["type": "integer"], ["type": "number"]]])
        #expect(validator.problems(Self.answer("1.5")) == [])
        #expect(validator.problems(Self.answer("1")).first?.contains("exactly one must") == true)
        #expect(validator.problems(Self.answer(#""x""#)).first?.contains("matches none of oneOf") == true)
    }

    // MARK: - docs/openapi.json, through the test clients

    @Test func theTestClientRecordsAnAnswerTheDocumentDoesNotDescribe() throws {
        let herald = try LiveHerald()
        // docs/openapi.json's own: as documented.
        #expect(try herald.client().request("GET", "/healthz").status == 200)
        // Judged by a document without /healthz, the same answer is a mismatch, and the test that received it fails.
        let client = herald.client()
        client.validator = Self.validator(Self.thing)
        try withKnownIssue {
            _ = try client.request("GET", "/healthz")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("a path not documented") }
        }
    }

    @Test func theInProcessResponderIsJudgedTheSameWay() throws {
        let herald = try LiveHerald()
        let app = ValidatingResponder(herald.application.responder)
        #expect(try app.respond(to: HTTPRequest(method: .get, target: "/healthz")).status.code == 200)
        let unknown = HTTPRequest(method: .get, target: "/api/admin/nothing-here")
        #expect(try app.respond(to: unknown).status.code == 404)
        let strict = ValidatingResponder(herald.application.responder, validator: Self.validator(Self.thing))
        withKnownIssue {
            _ = try strict.respond(to: HTTPRequest(method: .get, target: "/healthz"))
        }
    }

    @Test(.tags(.endToEnd)) func aRequestTheServerCannotReadGetsADocumentedAnswer() throws {
        let herald = try LiveHerald(transport: .socket)
        let client = herald.client()
        try client.send(raw: Array("NOT HTTP AT ALL\r\n\r\n".utf8))
        let response = try client.readResponse()
        #expect(response.status == 400 || response.status == 505, "\(response)")
    }
}
