import Foundation

/// Splits newline-delimited JSON (NDJSON, JSON Lines) into lines as its bytes arrive, in any pieces, holding at
/// most one line: what a streamed import reads a body of any size with.
///
/// Lines end at `\n` (a `\r` before it is dropped); the last line needs no newline. Blank lines (only spaces and
/// tabs) are skipped but counted, so line numbers are the ones an editor shows. A line longer than `maxLineBytes`
/// is reported as `.tooLong` once, its bytes discarded as they come, never held. The bytes of a line are handed
/// over as they are: whether they are JSON (or UTF-8) is the caller's to check.
///
/// ```swift
/// var reader = NDJSONLineReader(maxLineBytes: 64 * 1024)
/// for chunk in chunks {
///     reader.feed(chunk) { line in handle(line) }
/// }
/// reader.finish { line in handle(line) }
/// ```
public struct NDJSONLineReader: Sendable {
    /// One line of the input.
    public enum Line: Sendable, Equatable {
        /// A line's bytes (without its line ending), numbered from 1.
        case text(number: Int, bytes: [UInt8])
        /// A line over the limit: its number and length in bytes (without its line ending).
        case tooLong(number: Int, length: Int)
    }

    /// The longest line handed over, in bytes.
    public let maxLineBytes: Int
    /// The part of the current line received so far (empty while it is being discarded).
    private var pending: [UInt8] = []
    /// Bytes of the current line received so far.
    private var length = 0
    /// The number of the current line.
    private var number = 1
    /// Whether the current line is past `maxLineBytes`.
    private var overflowing = false
    /// Whether the last byte of the current line so far is a `\r`.
    private var endsInReturn = false

    /// A reader handing over lines of at most `maxLineBytes` bytes.
    public init(maxLineBytes: Int = 64 * 1024) {
        precondition(maxLineBytes > 0, "maxLineBytes must be positive")
        self.maxLineBytes = maxLineBytes
    }

    /// Lines completed so far (blank ones included).
    public var linesRead: Int { number - 1 }

    /// Takes the next bytes of the input, calling `body` with each line they complete, in order.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ body: (Line) throws -> Void) rethrows {
        guard let base = bytes.baseAddress else { return }
        var start = 0
        while start < bytes.count {
            guard let newline = memchr(base + start, 0x0A, bytes.count - start) else {
                take(UnsafeRawBufferPointer(rebasing: bytes[start...]))
                return
            }
            let end = base.distance(to: UnsafeRawPointer(newline))
            take(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
            try endLine(body)
            start = end + 1
        }
    }

    /// Takes the next bytes of the input (copied first when they are not contiguous).
    public mutating func feed(_ bytes: some Collection<UInt8>, _ body: (Line) throws -> Void) rethrows {
        if let done = try bytes.withContiguousStorageIfAvailable({ buffer in
            try feed(UnsafeRawBufferPointer(buffer), body)
        }) {
            return done
        }
        try Array(bytes).withUnsafeBytes { try feed($0, body) }
    }

    /// Ends the input: hands over its last line, if it had no newline.
    public mutating func finish(_ body: (Line) throws -> Void) rethrows {
        if length > 0 { try endLine(body) }
    }

    /// Adds bytes of the current line: kept while within the limit, dropped beyond it.
    private mutating func take(_ bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        guard count > 0 else { return }
        length += count
        endsInReturn = bytes[count - 1] == 0x0D
        if overflowing { return }
        // One byte of slack: a `\r` that turns out to end the line is not the line's.
        if length > maxLineBytes + 1 {
            overflowing = true
            pending = []
            return
        }
        pending.append(contentsOf: bytes)
    }

    private mutating func endLine(_ body: (Line) throws -> Void) rethrows {
        let lineNumber = number
        number += 1
        defer {
            pending.removeAll(keepingCapacity: pending.capacity <= 4096)
            length = 0
            overflowing = false
            endsInReturn = false
        }
        var lineLength = length
        if endsInReturn {
            if !overflowing { pending.removeLast() }
            lineLength -= 1
        }
        if overflowing || lineLength > maxLineBytes {
            try body(.tooLong(number: lineNumber, length: lineLength))
            return
        }
        guard pending.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
        try body(.text(number: lineNumber, bytes: pending))
    }
}
