import HeraldModel

/// What a handler answers.
public struct HTTPResponse: Sendable {
    /// Where the body comes from.
    package enum Body: Sendable {
        /// Bytes in memory.
        case bytes([UInt8])
        /// `length` bytes of the file at `path` from `offset`, streamed from disk by the server.
        case file(path: String, offset: Int64, length: Int64)
    }

    /// The status code.
    package var status: HTTPStatus
    /// Header fields, in order.
    package var headers: [(name: String, value: String)]
    /// The body.
    package var body: Body

    /// A response; no headers are added.
    package init(status: HTTPStatus = .ok, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response from already-encoded bytes.
    package static func json(_ encoded: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("content-type", "application/json; charset=utf-8")], body: .bytes(encoded))
    }

    /// A JSON response.
    package static func json(_ value: JSON, status: HTTPStatus = .ok) -> HTTPResponse {
        json(value.encoded, status: status)
    }

    /// A JSON response written by `write`.
    package static func json(status: HTTPStatus = .ok, capacity: Int = 256, _ write: (inout JSONWriter) -> Void)
        -> HTTPResponse
    {
        var writer = JSONWriter(capacity: capacity)
        write(&writer)
        return json(writer.bytes, status: status)
    }

    /// A list, `{"data":[…]}`, each item written by `item` (the shape of every paged list in the APIs).
    package static func list<Item>(_ items: some Sequence<Item>, _ item: (Item, inout JSONWriter) -> Void)
        -> HTTPResponse
    {
        json { writer in
            writer.beginObject()
            writer.key("data")
            writer.beginArray()
            for element in items { item(element, &writer) }
            writer.endArray()
            writer.endObject()
        }
    }

    /// A list, `{"data":[…]}`, of JSON values.
    package static func list<Item>(_ items: some Sequence<Item>, _ item: (Item) -> JSON) -> HTTPResponse {
        list(items) { element, writer in writer.value(item(element)) }
    }

    /// A plain-text response.
    package static func text(
        _ text: String, status: HTTPStatus = .ok, contentType: String = "text/plain; charset=utf-8"
    )
        -> HTTPResponse
    {
        HTTPResponse(status: status, headers: [("content-type", contentType)], body: .bytes(Array(text.utf8)))
    }

    /// The first header named `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }
}
