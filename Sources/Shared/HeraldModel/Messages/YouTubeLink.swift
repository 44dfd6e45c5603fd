/// YouTube links as Herald reads them: the 11-character video id of a watch (`youtube.com/watch?v=`), short,
/// live, embed (`youtube.com/embed/`, `youtube-nocookie.com/embed/`) or `youtu.be` link.
enum YouTubeLink {
    /// The hosts of YouTube's own links.
    static let hosts: Set<String> = [
        "youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com", "youtube-nocookie.com",
        "www.youtube-nocookie.com",
    ]

    /// The video id `url` names, nil when it is not a YouTube link to a video.
    static func videoID(in url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let hostEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var host = rest[..<hostEnd].lowercased()
        if let at = host.lastIndex(of: "@") { host = String(host[host.index(after: at)...]) }
        if let colon = host.firstIndex(of: ":") { host = String(host[..<colon]) }
        let pathAndQuery = rest[hostEnd...]
        let pathEnd = pathAndQuery.firstIndex { $0 == "?" || $0 == "#" } ?? pathAndQuery.endIndex
        let segments = pathAndQuery[..<pathEnd].split(separator: "/").map(String.init)
        var query: [String: String] = [:]
        if pathEnd < pathAndQuery.endIndex, pathAndQuery[pathEnd] == "?" {
            for part in pathAndQuery[pathAndQuery.index(after: pathEnd)...].prefix(while: { $0 != "#" })
                .split(separator: "&")
            {
                let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
                if pair.count == 2 { query[pair[0]] = pair[1] }
            }
        }
        let candidate: String?
        if host == "youtu.be" || host == "www.youtu.be" {
            candidate = segments.first
        } else if hosts.contains(host) {
            if segments.first == "watch" {
                candidate = query["v"]
            } else if segments.count >= 2, ["embed", "shorts", "live", "v"].contains(segments[0]) {
                candidate = segments[1]
            } else {
                candidate = nil
            }
        } else {
            candidate = nil
        }
        guard let id = candidate, isVideoID(id) else { return nil }
        return id
    }

    /// 11 characters from `A-Z a-z 0-9 _ -`.
    static func isVideoID(_ text: String) -> Bool {
        text.utf8.count == 11 && SurveyText.isIdentifier(text)
    }
}
