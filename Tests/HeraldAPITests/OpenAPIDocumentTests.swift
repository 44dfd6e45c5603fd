import Foundation
import HeraldModel
import HeraldAPI
import HeraldTesting
import Testing

/// `docs/openapi.json` against the routes Herald really serves: every route documented, nothing documented that
/// isn't served, path parameters declared, every operation answering a 2xx under a unique operationId, and every
/// `$ref` pointing somewhere. A new route, a renamed parameter or a removed endpoint fails here until the spec
/// says so too.
@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    /// The HTTP methods an OpenAPI path item may hold.
    private static let operationMethods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// `docs/openapi.json`, parsed by Herald's own JSON parser.
    private static func document() throws -> JSON {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // HeraldAPITests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // the package
        let data = try Data(contentsOf: root.appendingPathComponent("docs/openapi.json"))
        return try JSON.parse(Array(data))
    }

    /// Every operation of the document, as (path, lower-case method, operation).
    private static func operations(_ document: JSON) -> [(path: String, method: String, operation: JSON)] {
        var found: [(path: String, method: String, operation: JSON)] = []
        for (path, item) in document["paths"]?.objectValue ?? [] {
            for (key, operation) in item.objectValue ?? [] where operationMethods.contains(key) {
                found.append((path, key, operation))
            }
        }
        return found
    }

    /// The routes the application registers, as "METHOD pattern".
    private static func servedRoutes() throws -> [(method: String, pattern: String)] {
        let herald = try LiveHerald()
        return herald.application.routes
    }

    /// The value a local `$ref` (`#/components/schemas/User`) points to, or nil.
    private static func resolve(_ reference: String, in document: JSON) -> JSON? {
        guard reference.hasPrefix("#") else { return nil }
        let pointer = String(reference.dropFirst()).removingPercentEncoding ?? ""
        if pointer.isEmpty { return document }
        guard pointer.hasPrefix("/") else { return nil }
        var current = document
        for raw in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let token = raw.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch current {
            case .object:
                guard let next = current[token] else { return nil }
                current = next
            case .array(let items):
                guard let index = Int(token), items.indices.contains(index) else { return nil }
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }

    /// `value` itself, or what its `$ref` points to (followed through chains of references).
    private static func dereferenced(_ value: JSON, in document: JSON) -> JSON? {
        var current = value
        for _ in 0..<16 {
            guard let reference = current["$ref"]?.stringValue else { return current }
            guard let next = resolve(reference, in: document) else { return nil }
            current = next
        }
        return nil
    }

    /// Every `$ref` string in `value`, with where it was found.
    private static func references(in value: JSON, at location: String = "#") -> [(location: String, target: String)] {
        switch value {
        case .object(let pairs):
            var found: [(location: String, target: String)] = []
            for (key, child) in pairs {
                if key == "$ref", let target = child.stringValue {
                    found.append((location, target))
                } else {
                    let escaped = key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(
                        of: "/", with: "~1")
                    found += references(in: child, at: location + "/" + escaped)
                }
            }
            return found
        case .array(let items):
            return items.enumerated().flatMap { references(in: $0.element, at: location + "/\($0.offset)") }
        default:
            return []
        }
    }

    /// The `{name}` segments of a path pattern.
    private static func templateParameters(_ pattern: String) -> [String] {
        pattern.split(separator: "/").compactMap { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}") ? String(segment.dropFirst().dropLast()) : nil
        }
    }

    // MARK: - The document itself

    @Test func isAnOpenAPI31DocumentAboutHerald() throws {
        let document = try Self.document()
        #expect(document["openapi"]?.stringValue?.hasPrefix("3.1.") == true, "openapi must be 3.1.x")
        #expect(document["info"]?["title"]?.stringValue == "Herald")
        #expect(document["info"]?["version"]?.stringValue == "0.1.0")
        let schemes = document["components"]?["securitySchemes"]
        #expect(schemes?["adminToken"]?["scheme"]?.stringValue == "bearer")
        #expect(schemes?["posKey"]?["scheme"]?.stringValue == "bearer")
        #expect(schemes?["mobileAccessToken"]?["scheme"]?.stringValue == "bearer")
        #expect(schemes?["pchDigest"]?["type"]?.stringValue == "apiKey")
        #expect(schemes?["pchDigest"]?["name"]?.stringValue == "x-pch-digest")
        #expect(schemes?["pchDigest"]?["in"]?.stringValue == "header")
    }

    // MARK: - Routes against paths

    @Test func everyRouteIsDocumented() throws {
        let document = try Self.document()
        let documented = Set(Self.operations(document).map { "\($0.method.uppercased()) \($0.path)" })
        let routes = try Self.servedRoutes()
        #expect(!routes.isEmpty, "the application lists no routes")
        let missing = routes.map { "\($0.method) \($0.pattern)" }.filter { !documented.contains($0) }
        #expect(
            missing.isEmpty,
            "\(missing.count) route(s) served but missing from docs/openapi.json:\n  \(missing.joined(separator: "\n  "))"
        )
    }

    @Test func everyDocumentedOperationIsServed() throws {
        let document = try Self.document()
        let routes = try Self.servedRoutes()
        let served = Set(routes.map { "\($0.method) \($0.pattern)" })
        let fiction = Self.operations(document).compactMap { operation -> String? in
            let key = "\(operation.method.uppercased()) \(operation.path)"
            if served.contains(key) { return nil }
            // HEAD is answered by every GET route.
            if operation.method == "head", served.contains("GET \(operation.path)") { return nil }
            return key
        }
        #expect(
            fiction.isEmpty,
            "\(fiction.count) operation(s) in docs/openapi.json that Herald doesn't serve:\n  \(fiction.joined(separator: "\n  "))"
        )
    }

    @Test func pathParametersAreDeclared() throws {
        let document = try Self.document()
        var problems: [String] = []
        for (path, method, operation) in Self.operations(document) {
            let item = document["paths"]?[path] ?? .object([])
            let declared = ((item["parameters"]?.arrayValue ?? []) + (operation["parameters"]?.arrayValue ?? []))
                .compactMap { Self.dereferenced($0, in: document) }
                .filter { $0["in"]?.stringValue == "path" }
            let names = declared.compactMap { $0["name"]?.stringValue }
            let inPattern = Self.templateParameters(path)
            for name in inPattern where !names.contains(name) {
                problems.append("\(method.uppercased()) \(path): path parameter {\(name)} is not declared")
            }
            for parameter in declared {
                let name = parameter["name"]?.stringValue ?? "?"
                if !inPattern.contains(name) {
                    problems.append("\(method.uppercased()) \(path): declares path parameter \(name), not in the path")
                }
                if parameter["required"]?.boolValue != true {
                    problems.append("\(method.uppercased()) \(path): path parameter \(name) must be required: true")
                }
            }
        }
        #expect(problems.isEmpty, "path parameters:\n  \(problems.joined(separator: "\n  "))")
    }

    // MARK: - Operations

    @Test func everyOperationHasASuccessResponseAndAUniqueOperationID() throws {
        let document = try Self.document()
        let operations = Self.operations(document)
        #expect(!operations.isEmpty, "docs/openapi.json has no operations")
        var withoutSuccess: [String] = []
        var withoutID: [String] = []
        var owners: [String: [String]] = [:]
        let tags = Set((document["tags"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue })
        let schemes = Set((document["components"]?["securitySchemes"]?.objectValue ?? []).map(\.key))
        var badTags: [String] = []
        var badSecurity: [String] = []
        for (path, method, operation) in operations {
            let name = "\(method.uppercased()) \(path)"
            let codes = (operation["responses"]?.objectValue ?? []).map(\.key)
            if !codes.contains(where: { $0.count == 3 && $0.hasPrefix("2") }) { withoutSuccess.append(name) }
            if let id = operation["operationId"]?.stringValue, !id.isEmpty {
                owners[id, default: []].append(name)
            } else {
                withoutID.append(name)
            }
            for tag in (operation["tags"]?.arrayValue ?? []).compactMap(\.stringValue) where !tags.contains(tag) {
                badTags.append("\(name): tag \(tag)")
            }
            for requirement in operation["security"]?.arrayValue ?? [] {
                for (scheme, _) in requirement.objectValue ?? [] where !schemes.contains(scheme) {
                    badSecurity.append("\(name): security scheme \(scheme)")
                }
            }
        }
        let duplicates = owners.filter { $0.value.count > 1 }.sorted { $0.key < $1.key }
            .map { "\($0.key): \($0.value.joined(separator: ", "))" }
        #expect(
            withoutSuccess.isEmpty, "operations without a 2xx response:\n  \(withoutSuccess.joined(separator: "\n  "))")
        #expect(withoutID.isEmpty, "operations without an operationId:\n  \(withoutID.joined(separator: "\n  "))")
        #expect(duplicates.isEmpty, "operationIds used more than once:\n  \(duplicates.joined(separator: "\n  "))")
        #expect(badTags.isEmpty, "tags not declared in the document's tags:\n  \(badTags.joined(separator: "\n  "))")
        #expect(badSecurity.isEmpty, "undeclared security schemes:\n  \(badSecurity.joined(separator: "\n  "))")
    }

    @Test func everyReferenceResolves() throws {
        let document = try Self.document()
        let references = Self.references(in: document)
        #expect(!references.isEmpty, "docs/openapi.json has no $ref at all")
        let broken = references.filter { Self.resolve($0.target, in: document) == nil }
            .map { "\($0.location): \($0.target)" }
        #expect(
            broken.isEmpty, "\(broken.count) $ref(s) that resolve to nothing:\n  \(broken.joined(separator: "\n  "))")
    }
}
