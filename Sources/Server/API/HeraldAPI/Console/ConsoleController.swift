import HeraldCrypto
import HeraldHTTPServer
import HeraldModel

/// The admin console at `/console/`: static pages embedded in the binary (`ConsoleAssets`, generated from
/// `console/` by `scripts/generate-console`) that sign in with the admin token and do everything through the
/// admin API. The pages themselves are public (they hold no data); what they show comes from the API, token in hand.
/// The notification card the SDK shows (`CardAssets`, from `card/`) is served beside them at `/console/card/`: the
/// composer frames it as its in-app preview, the very files the phone loads.
///
/// Every answer carries a strict Content-Security-Policy (scripts and styles only from the console's own files, no
/// inline code, requests only to this origin; the console frames only this origin, the card only YouTube's
/// privacy-enhanced player, and only the console may frame the card) and an `ETag` (the SHA-256 of the file) to
/// revalidate against: `Cache-Control: no-cache`, so a new binary's console is never mixed with the old one's.
struct ConsoleController: Sendable {
    /// One embedded file, ready to serve.
    struct Asset: Sendable {
        let contentType: String
        let bytes: [UInt8]
        let etag: String
        let policy: String
        let frameOptions: String
    }

    /// The policy every console page carries. Images may come from any https host (a campaign's media may be
    /// hosted elsewhere) or from the file being uploaded (`blob:`); frames only from this origin (the card).
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: blob: data:; "
        + "connect-src 'self'; frame-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

    /// The policy the card's files carry: pictures and media from this origin, any https host or the file being
    /// uploaded; the YouTube player from youtube-nocookie.com only; no requests (it talks to the console through
    /// `postMessage`); framed by this origin only.
    static let cardContentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: blob: data:; "
        + "media-src 'self' https: blob:; frame-src https://www.youtube-nocookie.com; form-action 'none'; "
        + "frame-ancestors 'self'; base-uri 'none'"

    let assets: [String: Asset]
    let cardAssets: [String: Asset]

    init(
        files: [(name: String, contentType: String, text: String)] = ConsoleAssets.files,
        cardFiles: [(name: String, contentType: String, text: String)] = CardAssets.files
    ) {
        assets = Self.assets(files, policy: Self.contentSecurityPolicy, frameOptions: "DENY")
        cardAssets = Self.assets(cardFiles, policy: Self.cardContentSecurityPolicy, frameOptions: "SAMEORIGIN")
    }

    private static func assets(
        _ files: [(name: String, contentType: String, text: String)], policy: String, frameOptions: String
    ) -> [String: Asset] {
        var assets: [String: Asset] = [:]
        for file in files {
            let bytes = Array(file.text.utf8)
            let etag = "\"" + Hex.encode(Array(SHA256.hash(bytes).prefix(16))) + "\""
            assets[file.name] = Asset(
                contentType: file.contentType, bytes: bytes, etag: etag, policy: policy, frameOptions: frameOptions)
        }
        return assets
    }

    func register(in router: inout Router) {
        let assets = self.assets
        let cardAssets = self.cardAssets
        router.get("/console") { request in try Self.serve(assets["index.html"], request) }
        router.get("/console/{asset}") { request in
            try Self.serve(request.parameter("asset").flatMap { assets[$0] }, request)
        }
        router.get("/console/card/{asset}") { request in
            try Self.serve(request.parameter("asset").flatMap { cardAssets[$0] }, request)
        }
    }

    static func serve(_ asset: Asset?, _ request: HTTPRequest) throws -> HTTPResponse {
        guard let asset else { throw HTTPError.notFound("no such console file") }
        var headers: [(name: String, value: String)] = [
            ("etag", asset.etag), ("cache-control", "no-cache"),
            ("content-security-policy", asset.policy), ("x-content-type-options", "nosniff"),
            ("referrer-policy", "no-referrer"), ("x-frame-options", asset.frameOptions),
        ]
        if request.ifNoneMatch(asset.etag) { return HTTPResponse(status: .notModified, headers: headers) }
        headers.insert(("content-type", asset.contentType), at: 0)
        return HTTPResponse(status: .ok, headers: headers, body: .bytes(asset.bytes))
    }
}
