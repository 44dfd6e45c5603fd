/// A message's media: `{"type","url","thumbnail_url"?}`.
///
/// ```swift
/// let media = MessageMedia(type: .image, url: "https://cdn.example.com/burger.png")
/// media.attachment  // MediaAttachment(url: "https://cdn.example.com/burger.png", type: "png"): the push's ab.att
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

    /// The push attachment (`ab.att`) for image, video and audio media, nil for the other kinds. Its `type` is
    /// the URL's own suffix when that is one the kind accepts (`.png` → `png`), else the kind's first
    /// (`jpg`, `mp3`, `mp4`).
    public var attachment: MediaAttachment? {
        guard let preferred = type.attachmentTypes.first else { return nil }
        let suffix = Self.pathExtension(of: url)
        let chosen = suffix.flatMap { type.attachmentTypes.contains($0) ? $0 : nil } ?? preferred
        return MediaAttachment(url: url, type: chosen)
    }

    /// The lower-cased suffix of the URL's last path segment (`https://x/a/b.PNG?s=1` → `png`), if it has one.
    static func pathExtension(of url: String) -> String? {
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
