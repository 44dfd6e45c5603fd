import CCurl

/// A `curl_slist` of request header lines built in storage reused from request to request.
///
/// `curl_slist_append` makes two allocations per line; this writes every `name: value\0` line into one
/// growing text buffer and links nodes from one growing node array. curl only reads the list, until the
/// transfer is done; the owner rebuilds it only after that.
final class CurlHeaderList {
    private var text: UnsafeMutableRawPointer
    private var textCapacity: Int
    private var nodes: UnsafeMutablePointer<curl_slist>
    private var nodeCapacity: Int

    init() {
        textCapacity = 1024
        text = .allocate(byteCount: textCapacity, alignment: 1)
        nodeCapacity = 16
        nodes = .allocate(capacity: nodeCapacity)
    }

    deinit {
        text.deallocate()
        nodes.deallocate()
    }

    /// Builds the list for `headers`, adding lines that turn off curl's defaults the caller did not
    /// override: `Expect:` (no `100-continue` wait), `Accept:`, and `Content-Type:` when `hasBody` (curl
    /// would otherwise claim `application/x-www-form-urlencoded`). Returns the head of the list.
    func build(_ headers: [(name: String, value: String)], hasBody: Bool) -> UnsafeMutablePointer<curl_slist> {
        var hasExpect = false
        var hasAccept = false
        var hasContentType = false
        var textSize = 0
        for header in headers {
            let name = header.name.utf8
            // `name: value\0`, or `name;\0` for an empty value (curl drops `name:` lines with no value).
            textSize += name.count + (header.value.isEmpty ? 2 : 3 + header.value.utf8.count)
            switch name.count {
            case 6:
                hasExpect = hasExpect || Self.equalsLowercase(name, "expect")
                hasAccept = hasAccept || Self.equalsLowercase(name, "accept")
            case 12:
                hasContentType = hasContentType || Self.equalsLowercase(name, "content-type")
            default:
                break
            }
        }
        let removeExpect = !hasExpect
        let removeAccept = !hasAccept
        let removeContentType = hasBody && !hasContentType
        textSize += (removeExpect ? 8 : 0) + (removeAccept ? 8 : 0) + (removeContentType ? 14 : 0)
        let lineCount = headers.count + (removeExpect ? 1 : 0) + (removeAccept ? 1 : 0) + (removeContentType ? 1 : 0)
        reserve(textSize: textSize, lineCount: lineCount)

        var writer = Writer(base: text)
        var line = 0
        func link(_ start: Int) {
            nodes[line] = curl_slist(
                data: (text + start).assumingMemoryBound(to: CChar.self),
                next: line + 1 < lineCount ? nodes + line + 1 : nil)
            line += 1
        }
        for header in headers {
            let start = writer.offset
            writer.append(header.name)
            if header.value.isEmpty {
                writer.append(byte: UInt8(ascii: ";"))
            } else {
                writer.append(byte: UInt8(ascii: ":"))
                writer.append(byte: UInt8(ascii: " "))
                writer.append(header.value)
            }
            writer.append(byte: 0)
            link(start)
        }
        func appendRemoval(_ line: StaticString) {
            let start = writer.offset
            writer.append(line)
            writer.append(byte: 0)
            link(start)
        }
        if removeExpect { appendRemoval("Expect:") }
        if removeAccept { appendRemoval("Accept:") }
        if removeContentType { appendRemoval("Content-Type:") }
        return nodes
    }

    private func reserve(textSize: Int, lineCount: Int) {
        if textSize > textCapacity {
            text.deallocate()
            textCapacity = max(textSize, textCapacity * 2)
            text = .allocate(byteCount: textCapacity, alignment: 1)
        }
        if lineCount > nodeCapacity {
            nodes.deallocate()
            nodeCapacity = max(lineCount, nodeCapacity * 2)
            nodes = .allocate(capacity: nodeCapacity)
        }
    }

    private static func equalsLowercase(_ name: String.UTF8View, _ lowercase: StaticString) -> Bool {
        var index = 0
        for byte in name {
            if ResponseHeaderParser.lowercased(byte) != lowercase.utf8Start[index] { return false }
            index += 1
        }
        return index == lowercase.utf8CodeUnitCount
    }

    private struct Writer {
        let base: UnsafeMutableRawPointer
        var offset = 0

        mutating func append(byte: UInt8) {
            base.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
            offset += 1
        }

        mutating func append(_ string: StaticString) {
            (base + offset).copyMemory(from: string.utf8Start, byteCount: string.utf8CodeUnitCount)
            offset += string.utf8CodeUnitCount
        }

        mutating func append(_ string: String) {
            var string = string
            string.withUTF8 { bytes in
                guard let source = bytes.baseAddress else { return }
                (base + offset).copyMemory(from: source, byteCount: bytes.count)
                offset += bytes.count
            }
        }
    }
}
