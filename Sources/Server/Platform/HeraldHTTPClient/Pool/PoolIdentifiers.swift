/// A request as a ``ConnectionPool`` knows it: an opaque number the event loop maps to the request's slot.
struct RequestID: Hashable, Sendable, CustomStringConvertible {
    let rawValue: Int

    var description: String { "request \(rawValue)" }
}

/// A connection of one ``ConnectionPool``; numbers start at the pool's `firstConnectionID`, so pools of one event
/// loop never share one.
struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    let rawValue: Int

    var description: String { "connection \(rawValue)" }
}
