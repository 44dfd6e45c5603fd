import HeraldModel

/// Minimal HTTP/1.1 on one connection, one request at a time (no pipelining), for plain `http://` URLs and TLS
/// servers that do not speak HTTP/2: the request written whole, the response read with `Content-Length`, chunked
/// transfer coding, or up to the close. Interim `1xx` responses are skipped. Keep-alive unless the server says
/// `Connection: close` (then the pool drains the connection).
///
/// A request on a reused connection that the server closes before sending any byte back (it timed the idle
/// connection out as the request went) is reported as refused, so the pool sends it again on a new connection.
final class HTTP1Codec {
    private enum State {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case untilClose
    }

    /// `unowned(unsafe)`: the connection owns the codec and outlives it.
    unowned(unsafe) let connection: ClientConnection
    private var current: (request: RequestID, streamID: Int32)?
    private let input = ByteBuffer(capacity: 16 * 1024)
    private var state = State.head
    /// Responses completed on this connection.
    private var served = 0
    /// Whether any byte of the current response arrived.
    private var receivedAny = false
    private var closeAfterResponse = false
    private var isHeadRequest = false

    private static let maxHeadSize = 64 * 1024

    init(connection: ClientConnection) {
        self.connection = connection
    }

    private var loop: ClientEventLoop { connection.loop }

    /// Writes the request to the connection's output; `false` while another request is under way.
    func submit(_ request: RequestID, streamID: Int32) -> Bool {
        guard current == nil, let pending = loop.slots[RequestSlot.index(of: request)].pending else { return false }
        current = (request, streamID)
        state = .head
        receivedAny = false
        closeAfterResponse = false
        isHeadRequest = pending.request.method == "HEAD"
        input.removeAll()
        write(pending, to: connection.output)
        return true
    }

    private func write(_ pending: PendingRequest, to output: ByteBuffer) {
        let request = pending.request
        output.append(request.method)
        output.append(byte: UInt8(ascii: " "))
        request.url.withBorrowedUTF8 { bytes in
            let target = pending.target
            if target.needsLeadingSlash(in: bytes) { output.append(byte: UInt8(ascii: "/")) }
            if target.pathEnd > target.pathStart {
                output.append(
                    UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[target.pathStart..<target.pathEnd]))
            }
        }
        output.append(" HTTP/1.1\r\nHost: ")
        output.append(connection.origin.authority)
        output.append("\r\n")
        for header in request.headers where !Self.isManaged(header.name) {
            output.append(header.name)
            output.append(": ")
            output.append(header.value)
            output.append("\r\n")
        }
        let method = request.method
        if !request.body.isEmpty || method == "POST" || method == "PUT" || method == "PATCH" {
            output.append("Content-Length: ")
            output.append(decimal: request.body.count)
            output.append("\r\n")
        }
        output.append("\r\n")
        request.body.withUnsafeBytes { output.append($0) }
    }

    /// Fields the codec writes itself (or that would break the framing).
    private static func isManaged(_ name: String) -> Bool {
        switch name.utf8.count {
        case 4: return name.lowercased() == "host"
        case 10: return name.lowercased() == "connection"
        case 14: return name.lowercased() == "content-length"
        case 17: return name.lowercased() == "transfer-encoding"
        default: return false
        }
    }

    /// Bytes arrived; an error ends the connection.
    func receive(_ bytes: UnsafeRawBufferPointer) -> HTTPClientError? {
        guard current != nil else {
            return HTTPClientError(code: .connectionReset, message: "HTTP/1.1: data with no request outstanding")
        }
        receivedAny = true
        input.append(bytes)
        return parse()
    }

    /// The server closed the connection (or reading failed with `reason`).
    func receivedEnd(reason: String? = nil) {
        guard let current else {
            return connection.fail(HTTPClientError(code: .connectionReset, message: "the server closed the connection"))
        }
        if case .untilClose = state, reason == nil {
            return finish()
        }
        if !receivedAny && served > 0 {
            // A reused connection closed as the request went: the server never saw it. Send it again elsewhere.
            let id = connection.id
            loop.withPool(connection.pool) { pool, actions in
                _ = pool.streamClosed(
                    id, streamID: current.streamID, responseComplete: false, errorCode: .refusedStream, now: loop.now,
                    into: &actions)
            }
        }
        let detail = reason.map { ": \($0)" } ?? ""
        connection.fail(
            HTTPClientError(
                code: .connectionReset, message: "the connection closed before the response was complete\(detail)"))
    }

    private func parse() -> HTTPClientError? {
        while current != nil {
            switch state {
            case .head:
                switch parseHead() {
                case .none: return nil
                case .some(.none): continue
                case .some(.some(let error)): return error
                }
            case .fixed(let remaining):
                guard !input.isEmpty else { return nil }
                let count = min(remaining, input.count)
                body(count)
                if remaining == count { finish() } else { state = .fixed(remaining: remaining - count) }
            case .chunkSize:
                guard let line = takeLine() else { return input.count > 1024 ? framingError("chunk size") : nil }
                var size = 0
                var digits = 0
                for byte in line {
                    guard let value = Self.hexValue(byte) else { break }
                    size = size * 16 + value
                    digits += 1
                    guard size < 1 << 40 else { return framingError("chunk size") }
                }
                guard digits > 0 else { return framingError("chunk size") }
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                guard !input.isEmpty else { return nil }
                let count = min(remaining, input.count)
                body(count)
                state = remaining == count ? .chunkDataEnd : .chunkData(remaining: remaining - count)
            case .chunkDataEnd:
                guard input.count >= 2 else { return nil }
                guard input.readable[0] == 13, input.readable[1] == 10 else { return framingError("chunk end") }
                input.consume(2)
                state = .chunkSize
            case .trailers:
                guard let line = takeLine() else {
                    return input.count > Self.maxHeadSize ? framingError("trailers") : nil
                }
                if line.isEmpty { finish() }
            case .untilClose:
                if !input.isEmpty { body(input.count) }
                return nil
            }
        }
        return nil
    }

    /// Parses the status line and header block once they are complete. `nil`: wait for more bytes;
    /// `.some(nil)`: parsed, go on; `.some(error)`: the response is malformed.
    private func parseHead() -> HTTPClientError?? {
        let bytes = input.readable
        guard let end = Self.find(bytes, "\r\n\r\n") else {
            return bytes.count > Self.maxHeadSize ? .some(framingError("response head too large")) : nil
        }
        guard let lineEnd = Self.find(bytes, "\r\n"), lineEnd >= 12,
            bytes.starts(with: "HTTP/1.".utf8), bytes[8] == UInt8(ascii: " ")
        else { return .some(framingError("status line")) }
        var status = 0
        for index in 9..<12 {
            guard bytes[index] &- UInt8(ascii: "0") < 10 else { return .some(framingError("status code")) }
            status = status * 10 + Int(bytes[index] &- UInt8(ascii: "0"))
        }
        guard HTTPClientResponse.validStatuses.contains(status) else {
            return .some(framingError("status code \(status)"))
        }
        let isHTTP10 = bytes[7] == UInt8(ascii: "0")
        let headers = ResponseHeaderParser.parse(Array(bytes[(lineEnd + 2)..<(end + 2)]))
        input.consume(end + 4)
        if (100..<200).contains(status) && status != 101 { return .some(nil) }  // interim: the next head follows
        guard let (request, _) = current, loop.isActive(request) else { return .some(nil) }
        let index = RequestSlot.index(of: request)
        loop.slots[index].status = status
        loop.slots[index].headers = HeaderFieldStorage(headers)
        loop.slots[index].headersDone = true

        func value(_ name: String) -> String? { headers.first { $0.name == name }?.value.lowercased() }
        let connectionField = value("connection") ?? ""
        closeAfterResponse = connectionField.contains("close") || (isHTTP10 && !connectionField.contains("keep-alive"))
        if isHeadRequest || status == 204 || status == 304 {
            finish()
        } else if value("transfer-encoding")?.contains("chunked") == true {
            state = .chunkSize
        } else if let length = value("content-length") {
            guard let count = Int(length.trimmingWhitespace), count >= 0 else {
                return .some(framingError("content-length"))
            }
            if count == 0 { finish() } else { state = .fixed(remaining: count) }
        } else {
            closeAfterResponse = true
            state = .untilClose
        }
        return .some(nil)
    }

    /// Hands `count` bytes from the front of the input to the response body.
    private func body(_ count: Int) {
        if let (request, _) = current {
            loop.responseBody(request, UnsafeRawBufferPointer(rebasing: input.readable[0..<count]))
        }
        input.consume(count)
    }

    /// The response is complete.
    private func finish() {
        guard let (request, streamID) = current else { return }
        current = nil
        state = .head
        served += 1
        if loop.isActive(request) { loop.slots[RequestSlot.index(of: request)].complete = true }
        let id = connection.id
        let loop = self.loop
        let answered = loop.withPool(connection.pool) { pool, actions in
            if closeAfterResponse { pool.drain(id, now: loop.now, into: &actions) }
            return pool.streamClosed(
                id, streamID: streamID, responseComplete: true, errorCode: .noError, now: loop.now, into: &actions)
        }
        if let answered { loop.answered.append(answered) }
    }

    private func framingError(_ what: String) -> HTTPClientError {
        HTTPClientError(code: .connectionReset, message: "HTTP/1.1: malformed response (\(what))")
    }

    /// The next line without its CRLF, consumed; `nil` until one is complete.
    private func takeLine() -> [UInt8]? {
        let bytes = input.readable
        guard let end = Self.find(bytes, "\r\n") else { return nil }
        let line = Array(bytes[0..<end])
        input.consume(end + 2)
        return line
    }

    private static func find(_ bytes: UnsafeRawBufferPointer, _ pattern: StaticString) -> Int? {
        let count = pattern.utf8CodeUnitCount
        guard bytes.count >= count else { return nil }
        let first = pattern.utf8Start[0]
        var index = 0
        while index <= bytes.count - count {
            if bytes[index] == first {
                var matched = true
                for offset in 1..<count where bytes[index + offset] != pattern.utf8Start[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        if byte &- UInt8(ascii: "0") < 10 { return Int(byte &- UInt8(ascii: "0")) }
        if (byte | 0x20) &- UInt8(ascii: "a") < 6 { return Int((byte | 0x20) &- UInt8(ascii: "a")) + 10 }
        return nil
    }
}

extension String {
    fileprivate var trimmingWhitespace: Substring {
        var slice = self[...]
        while slice.first == " " || slice.first == "\t" { slice.removeFirst() }
        while slice.last == " " || slice.last == "\t" { slice.removeLast() }
        return slice
    }
}
