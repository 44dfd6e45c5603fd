import HeraldModel

/// What a push's `ab.att` asks to attach, once checked: an https URL, a type iOS attaches, and the size limit for
/// its kind.
///
/// ```swift
/// switch AttachmentPlan.make(payload: userInfoJSON) {
/// case .success(let plan): plan.url; plan.kind; plan.maximumBytes
/// case .failure(let failure): failure.code  // no_attachment, insecure_url, unsupported_type
/// }
/// ```
public struct AttachmentPlan: Sendable, Hashable {
    /// Where the media is.
    public let url: String
    /// The `type` as given, lower-cased without a leading dot: the saved file's suffix.
    public let type: String
    /// Image, audio or video.
    public let kind: MessageMediaType
    /// The largest file accepted, in bytes.
    public let maximumBytes: Int

    /// Reads and checks `ab.att` of an APNs payload (the notification's `userInfo` as JSON).
    public static func make(payload: JSON, options: RichPushOptions = RichPushOptions()) -> Result<
        AttachmentPlan, AttachmentFailure
    > {
        guard let media = payload["ab"].flatMap(APNsPayload.media(in:)) else {
            return .failure(AttachmentFailure(code: .noAttachment))
        }
        var type = media.type.lowercased()
        while type.hasPrefix(".") { type.removeFirst() }
        guard let kind = MessageMediaType(attachmentType: type) else {
            return .failure(AttachmentFailure(code: .unsupportedType, detail: "type \(type.prefix(16))"))
        }
        guard Self.host(of: media.url, plainHTTPHosts: options.plainHTTPHosts) != nil else {
            return .failure(AttachmentFailure(code: .insecureURL, detail: "only https media is downloaded"))
        }
        return .success(
            AttachmentPlan(
                url: media.url, type: type, kind: kind, maximumBytes: options.maximumBytes(for: kind.rawValue)))
    }

    /// The host of an https URL (or an http one on an allowed host); nil for anything else.
    static func host(of url: String, plainHTTPHosts: Set<String>) -> String? {
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }),
            let schemeEnd = url.range(of: "://")
        else { return nil }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var host = String(authority).lowercased()
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            host = String(host[...close])
        } else if let colon = host.firstIndex(of: ":") {
            host = String(host[..<colon])
        }
        guard !host.isEmpty else { return nil }
        switch scheme {
        case "https": return host
        case "http" where plainHTTPHosts.contains(host): return host
        default: return nil
        }
    }
}
