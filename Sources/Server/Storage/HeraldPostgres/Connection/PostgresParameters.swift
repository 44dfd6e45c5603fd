import HeraldStore

/// A statement's bound values, laid out as `PQexecPrepared` takes them: one buffer, a pointer, length and format
/// per value.
///
/// A value whose kind matches the type the statement was prepared with goes in binary: int8 and float8 as 8
/// big-endian bytes (exact, no decimal round trip), text as its UTF-8 bytes, bytea as its bytes. A value bound where
/// the statement was prepared with another type (a NULL at preparation left the type to the server, or the
/// statement is reused with a different kind of value) goes in text format, which PostgreSQL parses as the
/// parameter's type. NULL is a null pointer.
struct PostgresParameters {
    private var storage: [UInt8] = []
    private var offsets: [Int] = []  // -1 for NULL
    private(set) var lengths: [Int32] = []
    private(set) var formats: [Int32] = []

    private static let text: Int32 = 0
    private static let binary: Int32 = 1

    /// The layout of `values` for a statement prepared with `types`.
    init(_ values: [SQLValue], types: [PostgresType]) throws(PostgresError) {
        offsets.reserveCapacity(values.count)
        lengths.reserveCapacity(values.count)
        formats.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            let type = index < types.count ? types[index] : .unspecified
            let binary = type != .unspecified && type == PostgresType.of(value)
            let start = storage.count
            switch value {
            case .null:
                offsets.append(-1)
                lengths.append(0)
                formats.append(Self.text)
                continue
            case .integer(let number):
                if binary { append(UInt64(bitPattern: number)) } else { storage += Array(String(number).utf8) }
            case .real(let number):
                if binary { append(number.bitPattern) } else { storage += Array(SQLArray.realLiteral(number).utf8) }
            case .text(let text):
                if !binary, text.utf8.contains(0) {
                    throw PostgresError(.characterNotInRepertoire, "a text value holds a NUL character")
                }
                storage += text.utf8
            case .blob(let bytes):
                if binary {
                    storage += bytes
                } else {
                    storage += Array("\\x".utf8)
                    for byte in bytes { storage += [Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 15)]] }
                }
            }
            offsets.append(start)
            lengths.append(Int32(storage.count - start))
            formats.append(binary ? Self.binary : Self.text)
            if !binary { storage.append(0) }  // text format values end in NUL
        }
        storage.append(0)  // never empty, so the buffer has an address even when every value is empty
    }

    /// Calls `body` with the value pointers (null for NULL), lengths and formats.
    func withPointers<Result>(
        _ body: (UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<Int32>, UnsafePointer<Int32>) -> Result
    ) -> Result {
        storage.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!)
            let pointers: [UnsafePointer<CChar>?] =
                offsets.map { $0 < 0 ? nil : (base + $0).assumingMemoryBound(to: CChar.self) } + [nil]
            return pointers.withUnsafeBufferPointer { values in
                (lengths + [0]).withUnsafeBufferPointer { lengths in
                    (formats + [0]).withUnsafeBufferPointer { formats in
                        body(values.baseAddress!, lengths.baseAddress!, formats.baseAddress!)
                    }
                }
            }
        }
    }

    private mutating func append(_ bits: UInt64) {
        withUnsafeBytes(of: bits.bigEndian) { storage += $0 }
    }

    private static let hex = Array("0123456789abcdef".utf8)
}
