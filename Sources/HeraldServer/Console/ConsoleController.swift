import HeraldCrypto
import HeraldHTTP
import HeraldModel

/// The admin console at `/console/`: static pages embedded in the binary (`ConsoleAssets`, generated from
/// `console/` by `scripts/generate-console`) that sign in with the admin token and do everything through the
/// admin API. The pages themselves are public (they hold no data); what they show comes from the API, token in hand.
///
/// Every answer carries a strict Content-Security-Policy (scripts and styles only from the console's own files, no
/// inline code, requests only to this origin, no framing) and an `ETag` (the SHA-256 of the file) to revalidate
/// against: `Cache-Control: no-cache`, so a new binary's console is never mixed with the old one's.
struct ConsoleController: Sendable {
    /// One embedded file, ready to serve.
    struct Asset: Sendable {
        let contentType: String
        let bytes: [UInt8]
        let etag: String
    }

    /// The policy every console answer carries. Images may come from any https host (a campaign's media may be
    /// hosted elsewhere) or from the file being uploaded (`blob:`).
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: blob: data:; "
        + "connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

    let assets: [String: Asset]

    init(files: [(name: String, contentType: String, text: String)] = ConsoleAssets.files) {
        var assets: [String: Asset] = [:]
        for file in files {
            let bytes = Array(file.text.utf8)
            let etag = "\"" + Hex.encode(Array(SHA256.hash(bytes).prefix(16))) + "\""
            assets[file.name] = Asset(contentType: file.contentType, bytes: bytes, etag: etag)
        }
        self.assets = assets
    }

    func register(in router: inout Router) {
        let assets = self.assets
        router.get("/console") { request in try Self.serve(assets["index.html"], request) }
        router.get("/console/{asset}") { request in
            try Self.serve(request.parameter("asset").flatMap { assets[$0] }, request)
        }
    }

    static func serve(_ asset: Asset?, _ request: HTTPRequest) throws -> HTTPResponse {
        guard let asset else { throw HTTPError.notFound("no such console file") }
        var headers: [(name: String, value: String)] = [
            ("etag", asset.etag), ("cache-control", "no-cache"),
            ("content-security-policy", contentSecurityPolicy), ("x-content-type-options", "nosniff"),
            ("referrer-policy", "no-referrer"), ("x-frame-options", "DENY"),
        ]
        if request.ifNoneMatch(asset.etag) { return HTTPResponse(status: .notModified, headers: headers) }
        headers.insert(("content-type", asset.contentType), at: 0)
        return HTTPResponse(status: .ok, headers: headers, body: .bytes(asset.bytes))
    }
}
