import CNghttp2
import HeraldModel

#if canImport(Glibc)
    import Glibc
#endif

/// The header list of a request as nghttp2 takes it: pseudo-headers, then the caller's fields with names
/// lowercased and connection-specific ones dropped, then `content-length`. Written into the loop's scratch buffer
/// (nghttp2 copies what it keeps), so building it allocates nothing once the buffers have grown.
///
/// HPACK as Apple asks, so its small table is not churned: `:path` and `authorization` as literals that are not
/// indexed (they change from request to request, or are long); `apns-id`, `apns-expiration` and
/// `apns-collapse-id` indexed the first time on a connection, which puts their names in the table, then as literals
/// naming them by that index (nghttp2 finds the name there: a byte or two instead of the name on every push).
/// Indexing every new value instead cost nghttp2's deflater 15-40 % more CPU a request (a new entry, and an old
/// one evicted, each time) where expirations differ from push to push.
enum HTTP2RequestHeaders {
    /// The fields whose values change from push to push, named by the table after their first time on a
    /// connection.
    struct NamedFields: OptionSet {
        let rawValue: UInt8
        static let apnsID = NamedFields(rawValue: 1)
        static let apnsExpiration = NamedFields(rawValue: 2)
        static let apnsCollapseID = NamedFields(rawValue: 4)
    }

    /// Fills `list` (kept for reuse) with `pending`'s headers pointing into `text`. `named` is the connection's:
    /// which of the `NamedFields` went with indexing already (set when one does).
    static func build(
        _ pending: PendingRequest, origin: Origin, text: ByteBuffer, into list: inout [nghttp2_nv],
        named: inout NamedFields
    ) {
        // `pending.request` read in place throughout: a copy would retain every string of it.
        var total =
            128 + pending.request.method.utf8.count + origin.authority.utf8.count + pending.request.url.utf8.count
        for index in pending.request.headers.indices {
            total += pending.request.headers[index].name.utf8.count + pending.request.headers[index].value.utf8.count
        }
        text.removeAll()
        text.reserve(total)
        list.removeAll(keepingCapacity: true)

        func add(_ name: StaticString, _ value: String, flags: UInt8 = 0) {
            let nameStart = text.end
            text.append(name)
            let valueStart = text.end
            text.append(value)
            list.append(entry(nameStart, name.utf8CodeUnitCount, valueStart, text.end - valueStart, flags))
        }
        add(":method", pending.request.method)
        add(":scheme", origin.isTLS ? "https" : "http")
        add(":authority", origin.authority)
        pending.request.url.withBorrowedUTF8 { bytes in
            let target = pending.target
            let nameStart = text.end
            text.append(":path")
            let valueStart = text.end
            if target.needsLeadingSlash(in: bytes) { text.append(byte: UInt8(ascii: "/")) }
            if target.pathEnd > target.pathStart {
                text.append(
                    UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[target.pathStart..<target.pathEnd]))
            }
            list.append(entry(nameStart, 5, valueStart, text.end - valueStart, neverIndexed))
        }
        /// Indexed the first time on the connection, never indexed after.
        func indexedOnce(_ field: NamedFields) -> UInt8 {
            named.insert(field).inserted ? 0 : neverIndexed
        }
        for index in pending.request.headers.indices {
            var skip = false
            var flags: UInt8 = 0
            let nameStart = text.end
            text.append(pending.request.headers[index].name)
            let lowered = UnsafeMutableRawBufferPointer(start: text.base + nameStart, count: text.end - nameStart)
            for offset in lowered.indices where lowered[offset] &- UInt8(ascii: "A") < 26 { lowered[offset] |= 0x20 }
            let written = UnsafeRawBufferPointer(lowered)
            switch written.count {
            case 2: skip = Self.equals(written, "te")
            case 4: skip = Self.equals(written, "host")
            case 7:
                skip = Self.equals(written, "upgrade")
                if Self.equals(written, "apns-id") { flags = indexedOnce(.apnsID) }
            case 10: skip = Self.equals(written, "connection") || Self.equals(written, "keep-alive")
            case 13: flags = Self.equals(written, "authorization") ? neverIndexed : 0
            case 14: skip = Self.equals(written, "content-length")
            case 15: if Self.equals(written, "apns-expiration") { flags = indexedOnce(.apnsExpiration) }
            case 16:
                skip = Self.equals(written, "proxy-connection")
                if Self.equals(written, "apns-collapse-id") { flags = indexedOnce(.apnsCollapseID) }
            case 17: skip = Self.equals(written, "transfer-encoding")
            default: break
            }
            if skip {
                text.truncate(to: nameStart)
                continue
            }
            let valueStart = text.end
            text.append(pending.request.headers[index].value)
            list.append(entry(nameStart, valueStart - nameStart, valueStart, text.end - valueStart, flags))
        }
        let method = pending.request.method
        if !pending.request.body.isEmpty || method == "POST" || method == "PUT" || method == "PATCH" {
            add("content-length", String(pending.request.body.count))
        }
        // Offsets to pointers, now that the text no longer moves.
        for index in list.indices {
            let name = Int(bitPattern: list[index].name) - 1
            let value = Int(bitPattern: list[index].value) - 1
            list[index].name = (text.base + name).assumingMemoryBound(to: UInt8.self)
            list[index].value = (text.base + value).assumingMemoryBound(to: UInt8.self)
        }
    }

    private static let neverIndexed = UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)

    /// Whether `bytes` are exactly `literal` (the caller has checked the length).
    @inline(__always)
    private static func equals(_ bytes: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        memcmp(bytes.baseAddress!, literal.utf8Start, literal.utf8CodeUnitCount) == 0
    }

    /// An entry whose pointers hold offsets for now (`+ 1`, so none is null).
    private static func entry(
        _ nameStart: Int, _ nameLength: Int, _ valueStart: Int, _ valueLength: Int, _ flags: UInt8
    )
        -> nghttp2_nv
    {
        nghttp2_nv(
            name: UnsafeMutablePointer(bitPattern: nameStart + 1)!,
            value: UnsafeMutablePointer(bitPattern: valueStart + 1)!,
            namelen: nameLength, valuelen: valueLength, flags: flags)
    }
}
