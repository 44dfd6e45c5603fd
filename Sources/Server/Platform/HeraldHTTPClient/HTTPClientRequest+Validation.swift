import HeraldModel

extension HTTPClientRequest {
    /// Checks what would otherwise reach the wire unchecked: the URL (an absolute `http`/`https` URL with a
    /// host), header injection through CR/LF, NUL bytes, and methods or names that are not HTTP tokens. Runs on
    /// the caller's thread; returns where the request goes when it is fine.
    func validate() -> Result<RequestTarget, HTTPClientError> {
        if !method.withBorrowedUTF8({ !$0.isEmpty && $0.allSatisfy(Self.isTokenByte) }) {
            return .failure(HTTPClientError(code: .invalidRequest, message: "method is not an HTTP token"))
        }
        let target = url.withBorrowedUTF8 { bytes -> RequestTarget?? in
            guard !bytes.isEmpty, !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return .none }
            return .some(RequestTarget.parse(bytes))
        }
        guard let parsed = target else {
            return .failure(
                HTTPClientError(code: .invalidRequest, message: "URL is empty or holds spaces or control bytes"))
        }
        guard let target = parsed else {
            return .failure(
                HTTPClientError(
                    code: .invalidRequest, message: "URL is not an absolute http:// or https:// URL with a host"))
        }
        for index in headers.indices {
            if !headers[index].name.withBorrowedUTF8({ !$0.isEmpty && $0.allSatisfy(Self.isTokenByte) }) {
                return .failure(HTTPClientError(code: .invalidRequest, message: "a header name is not an HTTP token"))
            }
            if headers[index].value.withBorrowedUTF8(Self.holdsLineBreakOrNUL) {
                // The name is a token, so safe to show; the value may be a secret.
                return .failure(
                    HTTPClientError(
                        code: .invalidRequest, message: "value of header \(headers[index].name) holds CR, LF or NUL"))
            }
        }
        return .success(target)
    }

    /// The reason `validate()` refuses the request, if it does.
    func validationError() -> HTTPClientError? {
        if case .failure(let error) = validate() { return error }
        return nil
    }

    /// Whether `bytes` hold CR, LF or NUL. Eight bytes at a time: every push checks its provider token (a couple
    /// of hundred bytes) this way, and a byte at a time that was a tenth of what sending a push costs its caller.
    static func holdsLineBreakOrNUL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let start = bytes.baseAddress else { return false }
        let raw = UnsafeRawPointer(start)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        /// Whether some byte of `word` is zero (exact: the borrow that can fool it only runs above a zero byte).
        func hasZeroByte(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            if hasZeroByte(word) || hasZeroByte(word ^ (ones &* 0x0D)) || hasZeroByte(word ^ (ones &* 0x0A)) {
                return true
            }
            offset += 8
        }
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == 0x0D || byte == 0x0A || byte == 0x00 { return true }
            offset += 1
        }
        return false
    }

    /// RFC 9110 `tchar`.
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
