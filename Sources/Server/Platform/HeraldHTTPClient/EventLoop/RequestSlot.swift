/// One request's place in its event loop, reused from request to request: the request itself, its upload
/// progress and the response as it arrives. A ``RequestID`` names a slot and the generation of its current
/// request, so a late event about a finished request finds a newer generation and is ignored.
struct RequestSlot {
    /// Bumped each time the slot is freed.
    var generation = 1
    /// The request, while it is active.
    var pending: PendingRequest?
    /// Index of the request's pool in the loop.
    var pool = -1
    /// Body bytes handed to the connection so far (reset when the request is sent again).
    var uploaded = 0
    /// The response's status, 0 until the final one arrives.
    var status = 0
    var headers = HeaderFieldStorage()
    var body: [UInt8] = []
    /// The final response's header block is complete (later header blocks are trailers, dropped).
    var headersDone = false
    /// The header block being received is an interim (1xx) response's.
    var interim = false
    /// The whole response arrived (END_STREAM).
    var complete = false
    /// The response was refused (a body over the client's limit, an invalid status); the request is being failed.
    var refused = false

    /// Clears what a previous attempt at the request received.
    mutating func resetResponse() {
        uploaded = 0
        status = 0
        if !headers.isEmpty { headers = HeaderFieldStorage() }
        if !body.isEmpty { body = [] }
        headersDone = false
        interim = false
        complete = false
        refused = false
    }

    /// The id of the slot at `index` in its current generation.
    static func id(index: Int, generation: Int) -> RequestID {
        RequestID(rawValue: generation << 32 | index)
    }

    static func index(of id: RequestID) -> Int { id.rawValue & 0xFFFF_FFFF }

    static func generation(of id: RequestID) -> Int { id.rawValue >> 32 }
}
