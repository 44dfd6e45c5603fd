/// A complete response from ``HTTP2Client``. Any status, 4xx and 5xx included, is a response, not an error.
public struct HTTPClientResponse: Sendable {
    /// The status code of the final response (interim `1xx` responses are dropped).
    public var status: Int
    /// Header fields of the final response in arrival order, names lowercased.
    public var headers: [(name: String, value: String)]
    /// The response body, decoded from any transfer encoding.
    public var body: [UInt8]

    /// Creates a response, for stand-ins and tests.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the first header field called `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        for header in headers where Self.equalsIgnoringASCIICase(header.name, name) {
            return header.value
        }
        return nil
    }

    private static func equalsIgnoringASCIICase(_ lhs: String, _ rhs: String) -> Bool {
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil):
                return true
            case let (l?, r?):
                if ResponseHeaderParser.lowercased(l) != ResponseHeaderParser.lowercased(r) { return false }
            default:
                return false
            }
        }
    }
}
