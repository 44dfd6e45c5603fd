import HeraldModel

/// Bytes waiting to be written to a socket, or read from one and not yet parsed: one growable allocation,
/// consumed from the front. Confined to its event-loop thread.
final class ByteBuffer {
    private(set) var base: UnsafeMutableRawPointer
    private(set) var capacity: Int
    /// Offset of the first unconsumed byte.
    private(set) var start = 0
    /// Offset just past the last byte.
    private(set) var end = 0

    init(capacity: Int = 16 * 1024) {
        self.capacity = max(64, capacity)
        base = .allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { base.deallocate() }

    var count: Int { end - start }
    var isEmpty: Bool { end == start }

    /// The unconsumed bytes.
    var readable: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base + start, count: end - start) }

    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + end).copyMemory(from: source, byteCount: bytes.count)
        end += bytes.count
    }

    func append(_ string: String) {
        string.withBorrowedUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    func append(_ string: StaticString) {
        append(UnsafeRawBufferPointer(start: string.utf8Start, count: string.utf8CodeUnitCount))
    }

    func append(byte: UInt8) {
        reserve(1)
        base.storeBytes(of: byte, toByteOffset: end, as: UInt8.self)
        end += 1
    }

    /// Appends `value` in decimal (a small string: no allocation).
    func append(decimal value: Int) {
        append(String(value))
    }

    /// Makes room for `count` more bytes at the end (at ``writable``; call ``commit(_:)`` after writing).
    func reserve(_ count: Int) {
        if end + count <= capacity { return }
        if start > 0 && end - start + count <= capacity {
            base.copyMemory(from: base + start, byteCount: end - start)
            end -= start
            start = 0
            return
        }
        let newCapacity = max(capacity * 2, end - start + count)
        let grown = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        grown.copyMemory(from: base + start, byteCount: end - start)
        base.deallocate()
        base = grown
        capacity = newCapacity
        end -= start
        start = 0
    }

    /// Where `count` reserved bytes go.
    var writable: UnsafeMutableRawPointer { base + end }

    /// Marks `count` bytes written at ``writable``.
    func commit(_ count: Int) { end += count }

    /// Drops `count` bytes from the front.
    func consume(_ count: Int) {
        start += count
        if start == end {
            start = 0
            end = 0
        }
    }

    /// Drops the bytes after the first `offset` (an offset like ``end``).
    func truncate(to offset: Int) {
        end = max(start, min(end, offset))
    }

    func removeAll() {
        start = 0
        end = 0
    }
}
