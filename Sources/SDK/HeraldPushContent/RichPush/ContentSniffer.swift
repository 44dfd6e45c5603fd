/// What a file's first bytes say it is.
enum ContentSniffer {
    /// `jpg`, `png` or `gif` when the bytes start as that image format does.
    static func imageType(_ head: [UInt8]) -> String? {
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpg" }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "png" }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) { return "gif" }
        return nil
    }

    /// True when the bytes look like a text document (an HTML error page, JSON) rather than media.
    static func looksLikeText(_ head: [UInt8]) -> Bool {
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return !head.isEmpty }
        return first == UInt8(ascii: "<") || first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// True for a `Content-Type` no media file has (HTML, JSON, plain text).
    static func isTextContentType(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = contentType.split(separator: ";").first.map { $0.trimmingSpaces().lowercased() } ?? ""
        return type.hasPrefix("text/") || type == "application/json" || type == "application/xhtml+xml"
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}
