/// A response's header fields as received, in one byte array: each field is its name's and its value's lengths
/// (four bytes each, little-endian), then the name, then the value. One allocation a response however many fields
/// the server sends; a `String` is made only for a field that is read (a push gateway's answer is read for one or
/// two of them: five strings a response were a seventh of the allocations of a push).
struct HeaderFieldStorage: Sendable {
    private(set) var bytes: [UInt8] = []

    init() {}

    init(_ fields: [(name: String, value: String)]) {
        for field in fields {
            var name = field.name
            var value = field.value
            name.withUTF8 { name in
                value.withUTF8 { value in
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
        var name = name
        return name.withUTF8 { wanted in
            bytes.withUnsafeBufferPointer { bytes -> String? in
                var offset = 0
                while offset < bytes.count {
                    let (nameStart, nameCount, valueStart, valueCount) = Self.field(at: offset, in: bytes)
                    offset = valueStart + valueCount
                    guard nameCount == wanted.count else { continue }
                    var index = 0
                    while index < nameCount
                        && ResponseHeaderParser.lowercased(bytes[nameStart + index])
                            == ResponseHeaderParser.lowercased(wanted[index])
                    {
                        index += 1
                    }
                    if index == nameCount {
                        return String(
                            decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<offset]), as: UTF8.self)
                    }
                }
                return nil
            }
        }
    }

    /// Every field, in arrival order.
    var fields: [(name: String, value: String)] {
        bytes.withUnsafeBufferPointer { bytes in
            var fields: [(name: String, value: String)] = []
            var offset = 0
            while offset < bytes.count {
                let (nameStart, nameCount, valueStart, valueCount) = Self.field(at: offset, in: bytes)
                offset = valueStart + valueCount
                fields.append(
                    (
                        name: String(
                            decoding: UnsafeBufferPointer(rebasing: bytes[nameStart..<nameStart + nameCount]),
                            as: UTF8.self),
                        value: String(
                            decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<offset]), as: UTF8.self)
                    ))
            }
            return fields
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

    /// Where the name and value of the field starting at `offset` are.
    private static func field(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>)
        -> (nameStart: Int, nameCount: Int, valueStart: Int, valueCount: Int)
    {
        let nameCount = length(at: offset, in: bytes)
        let valueCount = length(at: offset + 4, in: bytes)
        return (offset + 8, nameCount, offset + 8 + nameCount, valueCount)
    }
}
