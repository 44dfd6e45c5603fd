import CLibPQ
import Foundation

/// How to connect: the URL (or `key=value` string) libpq reads, Herald's defaults under it and the caller's
/// parameters over it; and the password, to strip from libpq's messages.
struct PostgresConnectionSettings: Sendable {
    private let keywords: [String]
    private let values: [String]
    private let password: String?

    /// Settings for `url` (`postgres://user:pass@host:port/db?…`, `postgresql://…?host=/run/postgresql`, or
    /// `host=… dbname=…`), with `parameters` (libpq keywords) applied over it. Connects nowhere.
    init(url: String, parameters: [String: String]) throws(PostgresError) {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &message) else {
            let reason = message.map { String(cString: $0) } ?? "out of memory"
            PQfreemem(message)
            throw PostgresError(
                .unableToConnect, "cannot read the PostgreSQL connection string: \(Self.hidingQuotes(reason))")
        }
        defer { PQconninfoFree(options) }
        var found: String?
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "password", let value = option.pointee.val { found = String(cString: value) }
            option += 1
        }
        password = parameters["password"] ?? found
        // Defaults first (the URL overrides them), then the URL, then what must hold whatever the URL says
        // (Herald reads text as UTF-8), then the caller's parameters.
        // `random_page_cost=1.1`: the planner's default (4) prices an index look-up as a disk seek, so for a claim
        // of a few hundred jobs it chose hash joins over sequential scans of `notifications` and `devices` (22 ms
        // for 256 jobs at 30,000 rows, growing with the tables) over a nested loop of index look-ups (3 ms);
        // Herald's working set is meant to be cached, which 1.1 describes (bench/scale/throughput, RESULTS.md).
        var keywords = ["application_name", "connect_timeout", "options", "dbname", "client_encoding"]
        var values = ["herald", "10", "-c random_page_cost=1.1", url, "UTF8"]
        for (keyword, value) in parameters.sorted(by: { $0.key < $1.key }) {
            keywords.append(keyword)
            values.append(value)
        }
        self.keywords = keywords
        self.values = values
    }

    /// Opens a connection (blocking); nil only when libpq is out of memory. Check `PQstatus`.
    func connect() -> OpaquePointer? {
        let cKeywords = keywords.map { strdup($0) }
        let cValues = values.map { strdup($0) }
        defer {
            for pointer in cKeywords + cValues { free(pointer) }
        }
        let keywordPointers = cKeywords.map { UnsafePointer($0) } + [nil]
        let valuePointers = cValues.map { UnsafePointer($0) } + [nil]
        return PQconnectdbParams(keywordPointers, valuePointers, 1)
    }

    /// `message` with the password, if it appears, replaced.
    func redacting(_ message: String) -> String {
        guard let password, password.utf8.count >= 3 else { return message }
        return message.replacing(password, with: "[password]")
    }

    /// libpq's parse errors quote the fragment they refused, which may be part of a password: the quotes' contents
    /// become "…".
    static func hidingQuotes(_ text: String) -> String {
        var out = ""
        var quoted = false
        for character in text {
            if character == "\"" {
                out += quoted ? "…\"" : "\""
                quoted.toggle()
            } else if !quoted, !character.isNewline {
                out.append(character)
            }
        }
        return out
    }
}
