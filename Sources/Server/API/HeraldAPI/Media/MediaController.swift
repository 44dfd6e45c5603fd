import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// Herald's own hosting of rich-push media (images, audio, video that iOS attaches to a notification).
///
/// - `POST /api/admin/businesses/{id}/media?type=jpg` (admin token): the body is the file's bytes; the type comes
///   from `type` or the `Content-Type`. Checked against iOS's types and size limits and against the file's own
///   first bytes, stored content-addressed, answered 201 `{"url","type","size","sha256"}`: `url` and `type` are
///   ready to use as a notification's `media`.
/// - `GET` / `HEAD /media/{sha256}.{ext}` (no auth: devices download it): streamed from disk, cacheable forever
///   (the name is the content's hash), with `ETag` / `If-None-Match` → 304 and single byte ranges → 206.
///
/// A campaign makes every device's notification service extension fetch the same file within seconds; each
/// download is a cached lookup and a `sendfile`, and the `immutable` caching lets any CDN in front absorb them.
struct MediaController: Sendable {
    let library: MediaLibrary
    let businesses: BusinessService
    let auth: AdminAuthenticator
    /// The scheme, host and port devices reach Herald at (`https://push.example.com`), without a trailing slash.
    let publicBaseURL: @Sendable () -> String

    /// What notifications may link to among these files.
    var hosted: HostedMedia { HostedMedia(library: library, baseURL: publicBaseURL) }

    /// What `Cache-Control` says of every stored file: its URL names its content, so it never changes.
    static let cacheControl = "public, max-age=31536000, immutable"

    func register(in router: inout Router) {
        let auth = self.auth
        router.post("/api/admin/businesses/{id}/media") { request in
            try auth.authenticate(request)
            return try upload(request)
        }
        router.get("/media/{name}", download)
    }

    /// The body limit of the upload route for a caller holding the admin token (the largest file iOS attaches,
    /// 50 MB of video); nil elsewhere — and for anyone else, who can't make Herald hold 50 MB before being
    /// refused. For `HTTPServer.Configuration.bodyLimit` (`path` as received, like routing).
    static func bodyLimit(adminToken: String) -> @Sendable (HTTPMethod, String, (String) -> String?) -> Int? {
        { method, path, header in
            guard let authorization = header("authorization"), authorization.lowercased().hasPrefix("bearer "),
                AccessTokens.equal(String(authorization.dropFirst(7)).trimmingCharacters(in: " "), adminToken)
            else { return nil }
            return uploadLimit(method, path)
        }
    }

    static func uploadLimit(_ method: HTTPMethod, _ path: String) -> Int? {
        guard method == .post else { return nil }
        let segments = path.split(separator: "/").map { QueryString.percentDecoded(String($0), plusIsSpace: false) }
        guard segments.count == 5, segments[0] == "api", segments[1] == "admin", segments[2] == "businesses",
            segments[4] == "media"
        else { return nil }
        return MediaType.largestMaxBytes
    }

    // MARK: - Upload

    @Sendable func upload(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let id = request.parameter("id").flatMap(PathID.parse),
            try businesses.find(id: id) != nil
        else {
            throw HTTPError.notFound("business not found")
        }
        let type = try uploadType(request)
        let bytes = request.body
        guard !bytes.isEmpty else { throw HTTPError.invalid("file", "is empty: send the file's bytes as the body") }
        guard bytes.count <= type.maxBytes else {
            throw HTTPError.invalid(
                "file",
                "is too large for \(type.name): \(bytes.count) bytes; iOS attaches at most \(type.maxBytes) bytes "
                    + "(\(type.maxBytes >> 20) MB) of this type")
        }
        guard type.matches(bytes) else {
            throw HTTPError.invalid("file", "is not a \(type.name) file (its first bytes are not a \(type.name)'s)")
        }
        let (file, _) = try library.store(bytes, as: type)
        let url = publicBaseURL() + "/media/" + file.name
        var answer: [(key: String, value: JSON)] = [
            ("url", .string(url)), ("type", .string(type.name)), ("size", .int(file.size)),
            ("sha256", .string(file.sha256)),
        ]
        if url.hasPrefix("http://") {
            // Accepted in messages all the same (the console's preview and local trials need it), but no phone
            // downloads it: said here, where the link is made, and at start.
            answer.append(
                (
                    "warning",
                    "served over http: iOS and the SDK download media only over https; set --public-url to the https address phones reach Herald at"
                ))
        }
        var response = HTTPResponse.json(.object(answer), status: .created)
        response.headers.append(("location", url))
        return response
    }

    /// The type named by `?type=`, else by the `Content-Type`; 422 listing the accepted types otherwise.
    private func uploadType(_ request: HTTPRequest) throws -> MediaType {
        let accepted = MediaType.acceptedNames.joined(separator: ", ")
        if let name = request.queryValue("type") {
            guard let type = MediaType.named(name) else {
                throw HTTPError.invalid("type", "must be one of: \(accepted)")
            }
            return type
        }
        if let contentType = request.header("content-type"), let type = MediaType.forContentType(contentType) {
            return type
        }
        throw HTTPError.invalid(
            "type",
            "is required: ?type= one of \(accepted), or a Content-Type such as image/jpeg, image/png, audio/mpeg, "
                + "video/mp4")
    }

    // MARK: - Download

    @Sendable func download(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let name = request.parameter("name"), let file = library.file(named: name) else {
            throw HTTPError.notFound("media not found")
        }
        let conditions = Conditions(request)
        if conditions.isFresh(file) {
            return HTTPResponse(
                status: .notModified,
                headers: [
                    ("etag", file.etag), ("cache-control", Self.cacheControl), ("last-modified", file.lastModified),
                    ("content-length", String(file.size)),
                ])
        }
        var headers: [(name: String, value: String)] = [
            ("content-type", file.type.contentType), ("etag", file.etag), ("cache-control", Self.cacheControl),
            ("last-modified", file.lastModified), ("accept-ranges", "bytes"), ("x-content-type-options", "nosniff"),
        ]
        var range = ByteRange.parse(conditions.range, size: file.size)
        if range != .whole, let condition = conditions.ifRange, condition != file.etag, condition != file.lastModified {
            range = .whole  // the client's partial copy is of another version: send it all
        }
        switch range {
        case .whole:
            return HTTPResponse(
                status: .ok, headers: headers, body: .file(path: file.path, offset: 0, length: file.size))
        case .partial(let bytes):
            headers.append(("content-range", "bytes \(bytes.lowerBound)-\(bytes.upperBound - 1)/\(file.size)"))
            return HTTPResponse(
                status: .partialContent, headers: headers,
                body: .file(path: file.path, offset: bytes.lowerBound, length: bytes.upperBound - bytes.lowerBound))
        case .unsatisfiable:
            var error = HTTPError(
                .rangeNotSatisfiable, field: "range", "starts beyond the end of the file (\(file.size) bytes)"
            ).response
            error.headers.append(("content-range", "bytes */\(file.size)"))
            error.headers.append(("accept-ranges", "bytes"))
            return error
        }
    }

    /// The request headers a download looks at, read in one pass (the server lower-cases header names).
    private struct Conditions {
        var ifNoneMatch: String?
        var ifModifiedSince: String?
        var range: String?
        var ifRange: String?

        init(_ request: HTTPRequest) {
            for header in request.headers {
                switch header.name {
                case "if-none-match": ifNoneMatch = ifNoneMatch ?? header.value
                case "if-modified-since": ifModifiedSince = ifModifiedSince ?? header.value
                case "range": range = range ?? header.value
                case "if-range": ifRange = ifRange ?? header.value
                default: continue
                }
            }
        }

        /// Whether the client's copy is current: `If-None-Match` naming this file's tag (weak comparison, `*`
        /// too), else, without `If-None-Match`, `If-Modified-Since` repeating its `Last-Modified`.
        func isFresh(_ file: MediaLibrary.StoredFile) -> Bool {
            guard let tags = ifNoneMatch else { return ifModifiedSince == file.lastModified }
            return EntityTag.ifNoneMatch(tags, matches: file.etag)
        }
    }
}
