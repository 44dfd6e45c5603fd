/// A complete response from ``HTTP2Client``. Any status, 4xx and 5xx included, is a response, not an error.
package struct HTTPClientResponse: Sendable {
    /// The status code of the final response (interim `1xx` responses are dropped).
    package var status: Int
    /// Header fields of the final response in arrival order, names lowercased. Made on each read: ``header(_:)``
    /// finds one field without making the others.
    package var headers: [(name: String, value: String)] {
        get { fields.fields }
        set { fields = HeaderFieldStorage(newValue) }
    }
    /// The response body, decoded from any transfer encoding.
    package var body: [UInt8]
    /// The header fields as received.
    var fields: HeaderFieldStorage

    /// Creates a response, for stand-ins and tests.
    package init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.init(status: status, fields: HeaderFieldStorage(headers), body: body)
    }

    init(status: Int, fields: HeaderFieldStorage, body: [UInt8]) {
        self.status = status
        self.fields = fields
        self.body = body
    }

    /// The status codes a response may have (RFC 9110 §15: three digits, 1xx to 5xx). A response with another is
    /// malformed: the client fails its request (as RFC 9110 asks of a 5xx, it is worth retrying) rather than hand
    /// over a status no caller expects.
    static let validStatuses = 100...599

    /// The value of the first header field called `name`, compared case-insensitively.
    package func header(_ name: String) -> String? {
        fields.first(named: name)
    }
}
