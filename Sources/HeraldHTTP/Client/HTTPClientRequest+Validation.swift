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
            if headers[index].value.withBorrowedUTF8({ $0.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) })
            {
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
