/// Entity tags (RFC 9110 §8.8.3) and the `If-None-Match` test a 304 answers.
package enum EntityTag {
    /// Whether an `If-None-Match` value names `etag`: `*`, or a tag of its comma-separated list equal to it under
    /// weak comparison (a `W/` prefix on either side is ignored).
    package static func ifNoneMatch(_ header: String, matches etag: String) -> Bool {
        if header == etag { return true }
        let wanted = opaque(etag.utf8[...])
        return header.utf8.split(separator: UInt8(ascii: ",")).contains { tag in
            var tag = tag
            while tag.first == UInt8(ascii: " ") || tag.first == UInt8(ascii: "\t") { tag = tag.dropFirst() }
            while tag.last == UInt8(ascii: " ") || tag.last == UInt8(ascii: "\t") { tag = tag.dropLast() }
            return tag.elementsEqual("*".utf8) || opaque(tag).elementsEqual(wanted)
        }
    }

    private static func opaque(_ tag: Substring.UTF8View) -> Substring.UTF8View {
        tag.starts(with: "W/".utf8) ? tag.dropFirst(2) : tag
    }
}

extension HTTPRequest {
    /// Whether the client's copy is `etag`'s: its `If-None-Match` names it (a 304 then).
    package func ifNoneMatch(_ etag: String) -> Bool {
        header("if-none-match").map { EntityTag.ifNoneMatch($0, matches: etag) } ?? false
    }
}
