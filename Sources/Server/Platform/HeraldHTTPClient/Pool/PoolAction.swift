/// What a ``ConnectionPool`` asks its driver (the event loop) to do after an event. The pool has already
/// updated its own state as if the action were done.
enum PoolAction: Equatable, Sendable {
    /// Open this connection (resolve, connect, TLS); answer with `connectionReady` or `connectionClosed`.
    case connect(ConnectionID)
    /// Send the request on the connection as a new stream with this id (HTTP/2 client streams are numbered
    /// 1, 3, 5… in the order they are submitted; an HTTP/1.1 connection gets the same numbers, unused).
    case submit(RequestID, on: ConnectionID, streamID: Int32)
    /// Abandon a stream whose request the pool has failed (timeout, cancellation): `RST_STREAM(CANCEL)`, or,
    /// on HTTP/1.1, closing the connection (the pool is told by `connectionClosed`).
    case cancelStream(ConnectionID, streamID: Int32)
    /// Send a PING; answer with `pingAcknowledged`.
    case ping(ConnectionID)
    /// Close the connection. The pool has forgotten it: its streams were failed or sent again already.
    case close(ConnectionID)
    /// Complete the request with this error.
    case fail(RequestID, HTTPClientError)
}
