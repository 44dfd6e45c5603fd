/// One request for ``HTTP2Client``: everything is held in memory, body included.
///
/// ```swift
/// var request = HTTPClientRequest(method: "POST", url: "https://api.push.apple.com/3/device/\(token)")
/// request.headers = [("apns-topic", topic), ("authorization", "bearer \(jwt)")]
/// request.body = Array(payload)
/// let response = try await client.execute(request)
/// ```
package struct HTTPClientRequest: Sendable {
    /// The request method, e.g. `GET`, `POST`, `PUT`, `DELETE`, `HEAD`.
    package var method: String
    /// An absolute `https://` or `http://` URL.
    package var url: String
    /// Header fields sent in this order. Names are case-insensitive; neither part may hold CR, LF or NUL.
    package var headers: [(name: String, value: String)]
    /// The body sent as is (JSON, form-encoded, ...). Its length is sent as `content-length`.
    package var body: [UInt8]
    /// Time allowed for the whole request, from `execute` until the response is complete, including
    /// time spent waiting for a connection or stream. `.zero` or less means no limit.
    package var timeout: Duration

    /// Creates a request; every parameter but the URL has a default.
    package init(
        method: String = "GET",
        url: String,
        headers: [(name: String, value: String)] = [],
        body: [UInt8] = [],
        timeout: Duration = .seconds(30)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}
