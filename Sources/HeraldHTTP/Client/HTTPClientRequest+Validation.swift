extension HTTPClientRequest {
    /// Checks what curl would otherwise send unchecked: header injection through CR/LF, NUL bytes that
    /// would truncate C strings, and methods or names that are not HTTP tokens. Runs on the caller's thread.
    func validationError() -> HTTPClientError? {
        if method.isEmpty || !method.utf8.allSatisfy(Self.isTokenByte) {
            return HTTPClientError(code: .invalidRequest, message: "method is not an HTTP token")
        }
        if url.isEmpty || url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            return HTTPClientError(code: .invalidRequest, message: "URL is empty or holds spaces or control bytes")
        }
        for header in headers {
            if header.name.isEmpty || !header.name.utf8.allSatisfy(Self.isTokenByte) {
                return HTTPClientError(code: .invalidRequest, message: "a header name is not an HTTP token")
            }
            if header.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) {
                // The name is a token, so safe to show; the value may be a secret.
                return HTTPClientError(
                    code: .invalidRequest, message: "value of header \(header.name) holds CR, LF or NUL")
            }
        }
        return nil
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
