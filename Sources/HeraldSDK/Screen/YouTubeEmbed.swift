/// YouTube links as a privacy-enhanced embed: `https://www.youtube-nocookie.com/embed/<id>`.
enum YouTubeEmbed {
    /// The embed URL for a watch, short, `youtu.be` or embed link; nil when it names no video.
    static func embedURL(for url: String) -> String? {
        videoID(in: url).map { "https://www.youtube-nocookie.com/embed/\($0)" }
    }

    /// The 11-character video id of a YouTube link.
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
            let queryText = pathAndQuery[pathAndQuery.index(after: pathEnd)...].prefix { $0 != "#" }
            for part in queryText.split(separator: "&") {
                let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
                if pair.count == 2 { query[pair[0]] = pair[1] }
            }
        }
        let candidate: String?
        switch host {
        case "youtu.be", "www.youtu.be":
            candidate = segments.first
        case "youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com", "youtube-nocookie.com",
            "www.youtube-nocookie.com":
            if segments.first == "watch" {
                candidate = query["v"]
            } else if segments.count >= 2, ["embed", "shorts", "live", "v"].contains(segments[0]) {
                candidate = segments[1]
            } else {
                candidate = nil
            }
        default:
            candidate = nil
        }
        guard let id = candidate, isVideoID(id) else { return nil }
        return id
    }

    /// 11 characters from `A-Z a-z 0-9 _ -`.
    static func isVideoID(_ text: String) -> Bool {
        text.utf8.count == 11
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                    return true
                default:
                    return false
                }
            }
    }
}
