import Foundation
import HeraldHTTPServer
import HeraldModel

/// docs/openapi.json as the judge of what Herald answers: the operation a request reached (found as the server's own
/// router finds it), a status that operation lists, a content type it lists for that status, and a body valid against
/// its schema (`OpenAPIValidator+Schema`). The test clients check every answer with it (`TestHTTPClient.validator`,
/// `LiveHerald.client()`), and `openapi-check` (Tests/OpenAPICheck) lets the Python suites ask the same questions.
///
/// Requests no operation serves are judged by the document's `x-unrouted-responses` (an unknown path's 404, a known
/// path's 405), and answers the server may give before any operation runs (a body or head too large, no `Host`, a
/// server stopping, an unexpected failure) by its `x-any-request-responses`.
///
/// ```swift
/// let problems = OpenAPIValidator.shared.problems(
///     .init(method: "GET", target: "/healthz", status: 200, contentType: "application/json", body: bytes))
/// // [] when docs/openapi.json says so, else one line per mismatch
/// ```
public struct OpenAPIValidator: Sendable {
    /// One answer as received, with the request it answers.
    public struct Exchange: Sendable {
        /// The request's method (`GET`); nil when the request could not be read as HTTP.
        public var method: String?
        /// The request target as sent: the path and `?query`.
        public var target: String
        /// The answer's status code.
        public var status: Int
        /// The answer's `Content-Type`, if any.
        public var contentType: String?
        /// The answer's body.
        public var body: [UInt8]

        /// An exchange.
        public init(method: String?, target: String, status: Int, contentType: String?, body: [UInt8]) {
            self.method = method
            self.target = target
            self.status = status
            self.contentType = contentType
            self.body = body
        }
    }

    /// The document, parsed.
    let document: JSON
    /// The document's paths, as the server's router matches them (each handler is never called).
    private let router: Router

    /// docs/openapi.json of this checkout, read once; a document that cannot be read is a fatal error of the tests.
    public static let shared: OpenAPIValidator = {
        let url = URL(fileURLWithPath: StandIn.repositoryRoot).appendingPathComponent("docs/openapi.json")
        do {
            return OpenAPIValidator(document: try JSON.parse(Array(try Data(contentsOf: url))))
        } catch {
            fatalError("cannot read \(url.path): \(error)")
        }
    }()

    /// A validator of answers against `document` (an OpenAPI 3.1 document).
    public init(document: JSON) {
        self.document = document
        var router = Router()
        for (path, item) in document["paths"]?.objectValue ?? [] {
            for (key, _) in item.objectValue ?? [] where Self.methods.contains(key) {
                router.add(HTTPMethod(key), path) { _ in HTTPResponse(status: .ok) }
            }
        }
        self.router = router
    }

    private static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// What is wrong with `exchange` by the document, one line each; empty when nothing is.
    public func problems(_ exchange: Exchange) -> [String] {
        let request = "\(exchange.method ?? "(unreadable request)") \(exchange.target) → \(exchange.status)"
        let (responses, place) = responses(for: exchange)
        let code = String(exchange.status)
        let family = "\(exchange.status / 100)XX"
        let global = document["x-any-request-responses"]
        // The operation's own answer for the status first, then what any request may get: the first that fits.
        let candidates = [responses?[code], responses?[family], responses?["default"], global?[code], global?[family]]
            .compactMap { $0 }
        guard !candidates.isEmpty else {
            let listed = ((responses?.objectValue ?? []) + (global?.objectValue ?? [])).map(\.key)
            return [
                "\(request): status \(code) is not documented for \(place) (documented: "
                    + listed.joined(separator: ", ") + ")"
            ]
        }
        var first: [String]?
        for candidate in candidates {
            guard let response = dereferenced(candidate) else {
                return ["\(request): \(place): a $ref that resolves to nothing"]
            }
            let problems = bodyProblems(exchange, response)
            if problems.isEmpty { return [] }
            first = first ?? problems
        }
        return (first ?? []).map { "\(request): \($0)" }
    }

    /// The responses the document gives for what `exchange` asked, and where they were found.
    private func responses(for exchange: Exchange) -> (JSON?, String) {
        guard let method = exchange.method else { return (nil, "a request that is not HTTP") }
        let rawPath = String(exchange.target.prefix { $0 != "?" })
        let lowered = method.lowercased()
        switch router.match(HTTPMethod(method), rawPath) {
        case .found(_, let pattern, _):
            let item = document["paths"]?[pattern]
            // Every GET also answers HEAD (the info's description says so).
            let operation = item?[lowered] ?? (lowered == "head" ? item?["get"] : nil)
            return (operation?["responses"], "\(method.uppercased()) \(pattern)")
        case .methodNotAllowed:
            return (document["x-unrouted-responses"]?["405"].map { .object([("405", $0)]) }, "a method the path lacks")
        case .notFound:
            return (document["x-unrouted-responses"]?["404"].map { .object([("404", $0)]) }, "a path not documented")
        }
    }

    /// What is wrong with the answer's content type and body by `response` (a response object).
    private func bodyProblems(_ exchange: Exchange, _ response: JSON) -> [String] {
        let isHead = exchange.method?.uppercased() == "HEAD"
        let declared = response["content"]?.objectValue ?? []
        let mediaType = exchange.contentType.map {
            String($0.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard !declared.isEmpty else {
            if exchange.body.isEmpty || isHead { return [] }
            return ["answers a body (\(mediaType ?? "no content-type")) the document does not describe"]
        }
        if exchange.body.isEmpty && !isHead {
            return ["answers no body where the document describes one (\(declared.map(\.key).joined(separator: ", ")))"]
        }
        // Without a Content-Type, a body is application/octet-stream (RFC 9110, 8.3).
        guard let mediaType = mediaType ?? (exchange.body.isEmpty ? nil : "application/octet-stream") else {
            return []
        }
        let major = mediaType.prefix { $0 != "/" } + "/*"
        guard
            let content = declared.first(where: { $0.key.lowercased() == mediaType })
                ?? declared.first(where: { $0.key.lowercased() == major })
                ?? declared.first(where: { $0.key == "*/*" })
        else {
            return [
                "content-type \(mediaType) is not documented (documented: \(declared.map(\.key).joined(separator: ", ")))"
            ]
        }
        guard !isHead, mediaType == "application/json" || mediaType.hasSuffix("+json"),
            let schema = content.value["schema"]
        else { return [] }
        let value: JSON
        do {
            value = try JSON.parse(exchange.body)
        } catch {
            return ["the body is not JSON: \(error)"]
        }
        return schemaProblems(value, schema, at: "$")
    }

    /// The value a local `$ref` (`#/components/schemas/User`) points to, or nil.
    func resolve(_ reference: String) -> JSON? {
        guard reference.hasPrefix("#/") else { return nil }
        var current = document
        for raw in reference.dropFirst(2).split(separator: "/", omittingEmptySubsequences: false) {
            let token = raw.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            guard let next = current[token] else { return nil }
            current = next
        }
        return current
    }

    /// `value` itself, or what its `$ref` points to (through chains of references).
    func dereferenced(_ value: JSON) -> JSON? {
        var current = value
        for _ in 0..<16 {
            guard let reference = current["$ref"]?.stringValue else { return current }
            guard let next = resolve(reference) else { return nil }
            current = next
        }
        return nil
    }
}
