/// A message's media: `{"type","url","thumbnail_url"?}`.
///
/// ```swift
/// let media = MessageMedia(type: .image, url: "https://cdn.example.com/burger.png")
/// media.attachment  // MediaAttachment(url: "https://cdn.example.com/burger.png", type: "png"): the push's ab.att
/// MessageMedia(type: .youtube, url: "https://youtu.be/dQw4w9WgXcQ").youTubeVideoID  // "dQw4w9WgXcQ"
/// ```
public struct MessageMedia: Sendable, Hashable {
    /// What kind of media it is.
    public var type: MessageMediaType
    /// Where it is.
    public var url: String
    /// A still picture to show before it plays (video, YouTube), if any.
    public var thumbnailURL: String?

    /// Media of `type` at `url`.
    public init(type: MessageMediaType, url: String, thumbnailURL: String? = nil) {
        self.type = type
        self.url = url
        self.thumbnailURL = thumbnailURL
    }

    /// Reads `{"type","url","thumbnail_url"?}`: nil unless `type` and `url` are non-empty strings and
    /// `thumbnail_url`, when present and not null, is a string. Other keys are ignored.
    public init?(json: JSON) {
        guard json.objectValue != nil, let type = json["type"]?.stringValue, !type.isEmpty,
            let url = json["url"]?.stringValue, !url.isEmpty
        else { return nil }
        var thumbnail: String?
        switch json["thumbnail_url"] {
        case nil, .null: thumbnail = nil
        case .string(let text): thumbnail = text.isEmpty ? nil : text
        default: return nil
        }
        self.init(type: MessageMediaType(rawValue: type), url: url, thumbnailURL: thumbnail)
    }

    /// `{"type","url"}`, with `thumbnail_url` when there is one.
    public var json: JSON {
        var pairs: [(key: String, value: JSON)] = [("type", .string(type.rawValue)), ("url", .string(url))]
        if let thumbnailURL { pairs.append(("thumbnail_url", .string(thumbnailURL))) }
        return .object(pairs)
    }

    /// The push attachment (`ab.att`) for image, video and audio media: its `type` is the URL's own suffix
    /// (`.png` → `png`), which must be one iOS attaches for the kind (`MessageMediaType.attachmentTypes`). Nil for
    /// the other kinds, and for a URL without such a suffix: its real type is not guessed (an image at `….mp4`
    /// sent as `jpg` would fail in the service extension). The admin API refuses such media.
    public var attachment: MediaAttachment? {
        guard let suffix = Self.pathExtension(of: url), type.attachmentTypes.contains(suffix) else { return nil }
        return MediaAttachment(url: url, type: suffix)
    }

    /// The video id of a `youtube` medium's URL (a watch, short, live, embed or `youtu.be` link), nil when it
    /// names none: the card embeds `https://www.youtube-nocookie.com/embed/<id>`.
    public var youTubeVideoID: String? {
        guard type == .youtube else { return nil }
        return YouTubeLink.videoID(in: url)
    }

    /// The lower-cased suffix of the URL's last path segment (`https://x/a/b.PNG?s=1` → `png`), if it has one.
    package static func pathExtension(of url: String) -> String? {
        var text = Substring(url)
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<cut] }
        if let scheme = text.range(of: "://") { text = text[scheme.upperBound...] }
        guard let slash = text.lastIndex(of: "/") else { return nil }
        let segment = text[text.index(after: slash)...]
        guard let dot = segment.lastIndex(of: "."), dot != segment.startIndex else { return nil }
        let suffix = segment[segment.index(after: dot)...]
        guard !suffix.isEmpty, suffix.count <= 8 else { return nil }
        return suffix.lowercased()
    }
}
