import HeraldModel

/// A response's header fields as received, in one byte array: each field is its name's and its value's lengths
/// (four bytes each, little-endian), then the name, then the value. One allocation a response however many fields
/// the server sends; a `String` is made only for a field that is read (a push gateway's answer is read for one or
/// two of them: five strings a response were a seventh of the allocations of a push).
struct HeaderFieldStorage: Sendable {
    private(set) var bytes: [UInt8] = []

    init() {}

    init(_ fields: [(name: String, value: String)]) {
        for field in fields {
            field.name.withBorrowedUTF8 { name in
                field.value.withBorrowedUTF8 { value in
                    append(name: UnsafeRawBufferPointer(name), value: UnsafeRawBufferPointer(value))
                }
            }
        }
    }

    var isEmpty: Bool { bytes.isEmpty }

    /// Makes room for `count` bytes of fields at once, rather than growing 16, 32, 64, … (an allocation each).
    mutating func reserve(_ count: Int) { bytes.reserveCapacity(count) }

    mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        Self.appendLength(name.count, to: &bytes)
        Self.appendLength(value.count, to: &bytes)
        bytes.append(contentsOf: name)
        bytes.append(contentsOf: value)
    }

    /// The value of the first field called `name`, compared case-insensitively (ASCII).
    func first(named name: String) -> String? {
        name.withBorrowedUTF8 { wanted in
            var found: String?
            forEachField { fieldName, value in
                guard fieldName.count == wanted.count,
                    zip(fieldName, wanted).allSatisfy({
                        ResponseHeaderParser.lowercased($0) == ResponseHeaderParser.lowercased($1)
                    })
                else { return true }
                found = String(decoding: value, as: UTF8.self)
                return false
            }
            return found
        }
    }

    /// Every field, in arrival order.
    var fields: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        forEachField { name, value in
            fields.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            return true
        }
        return fields
    }

    /// Calls `body` with each field's name and value in arrival order, while it returns `true`.
    private func forEachField(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool) {
        bytes.withUnsafeBufferPointer { bytes in
            var offset = 0
            while offset < bytes.count {
                let nameStart = offset + 8
                let valueStart = nameStart + Self.length(at: offset, in: bytes)
                offset = valueStart + Self.length(at: offset + 4, in: bytes)
                let name = UnsafeBufferPointer(rebasing: bytes[nameStart..<valueStart])
                guard body(name, UnsafeBufferPointer(rebasing: bytes[valueStart..<offset])) else { return }
            }
        }
    }

    private static func appendLength(_ count: Int, to bytes: inout [UInt8]) {
        let length = UInt32(truncatingIfNeeded: count)
        bytes.append(UInt8(truncatingIfNeeded: length))
        bytes.append(UInt8(truncatingIfNeeded: length >> 8))
        bytes.append(UInt8(truncatingIfNeeded: length >> 16))
        bytes.append(UInt8(truncatingIfNeeded: length >> 24))
    }

    private static func length(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
    }
}
