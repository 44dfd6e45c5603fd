import Foundation
import HeraldTesting
import Testing

/// The README's "What it serves" table against the routes Herald really serves: each route is in the table, and
/// each path the table names is served.
@Suite("README: what it serves")
struct ReadmeRoutesTests {
    /// The table's rows, as (methods, paths): `PUT, POST` and `` `a`, `…/b` `` spelled out, `[optional]` parts
    /// both with and without, query strings dropped, every `{parameter}` (and `{sha256}.{ext}`) as `{}`.
    static func tableRows() throws -> [(methods: [String], paths: [String])] {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = readme.range(of: "## What it serves") else { return [] }
        let section = readme[start.upperBound...]
        var rows: [(methods: [String], paths: [String])] = []
        for line in section.split(separator: "\n") {
            if line.hasPrefix("## ") { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 4, cells[1] != "Method", !cells[1].hasPrefix("---") else { continue }
            let methods = cells[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            var paths: [String] = []
            var previous = ""
            for quoted in cells[2].split(separator: "`", omittingEmptySubsequences: false).enumerated()
            where quoted.offset % 2 == 1 {
                var path = String(quoted.element.prefix { $0 != "?" })
                if path.hasPrefix("…/") {
                    path = String(previous[...previous.lastIndex(of: "/")!]) + path.dropFirst(2)
                }
                previous = path
                paths += expandOptional(path).map(normalized)
            }
            rows.append((methods, paths))
        }
        return rows
    }

    /// `a[b]c` as `ac` and `abc` (one optional part at most, as the table writes them).
    static func expandOptional(_ path: String) -> [String] {
        guard let open = path.firstIndex(of: "["), let close = path.firstIndex(of: "]") else { return [path] }
        let before = path[..<open]
        let inside = path[path.index(after: open)..<close]
        let after = path[path.index(after: close)...]
        return [String(before + after), String(before + inside + after)]
    }

    /// Every parameter as `{}`.
    static func normalized(_ pattern: String) -> String {
        pattern.replacingOccurrences(of: #"\{[^}]*\}(\.\{[^}]*\})?"#, with: "{}", options: .regularExpression)
    }

    @Test func everyRouteIsInTheTableAndEveryPathOfTheTableIsServed() throws {
        let rows = try Self.tableRows()
        #expect(rows.count > 40, "the table was not found or not read")
        let documented = Set(
            rows.flatMap { row in row.methods.flatMap { method in row.paths.map { "\(method) \($0)" } } })
        let routes = try LiveHerald().application.routes.map { (method: $0.method, path: Self.normalized($0.pattern)) }
        let missing = routes.filter { !documented.contains("\($0.method) \($0.path)") }.map {
            "\($0.method) \($0.path)"
        }
        #expect(missing.isEmpty, "served but not in the README's table: \(missing)")
        let served = Set(routes.map(\.path))
        let unknown = Set(rows.flatMap(\.paths)).subtracting(served)
        #expect(unknown.isEmpty, "in the README's table but not served: \(unknown.sorted())")
    }
}
