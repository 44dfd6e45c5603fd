/// Takes a request body piece by piece as it arrives, so that a body of any size is never held whole: what a route
/// registered with `Router.stream` reads its body with. Used by one thread at a time (the connection's).
///
/// ```swift
/// final class LineCounter: HTTPBodyConsumer {
///     var lines = 0
///     func receive(_ bytes: UnsafeRawBufferPointer) throws { lines += bytes.count { $0 == 0x0A } }
///     func finish() throws -> HTTPResponse { .json(["lines": .int(Int64(lines))]) }
/// }
/// router.stream(.post, "/count") { _ in LineCounter() }
/// ```
package protocol HTTPBodyConsumer: AnyObject {
    /// The next bytes of the body, in order (valid only during the call). Throwing stops the reading: the rest of
    /// the body is discarded as it arrives and the error answers the request.
    func receive(_ bytes: UnsafeRawBufferPointer) throws
    /// The whole body arrived: the answer.
    func finish() throws -> HTTPResponse
}

/// Opens a consumer for a request whose head has arrived (method, target, headers, route and path parameters; no
/// body yet). Throwing answers the request before any of its body is read: a caller who may not send it never does.
package typealias HTTPBodyConsumerOpener = @Sendable (HTTPRequest) throws -> any HTTPBodyConsumer

/// A request body the server gave to its route's consumer as it arrived, instead of collecting it into
/// `HTTPRequest.body`: the route's handler finishes it (`Router.stream`).
///
/// Sendable only to travel inside `HTTPRequest`: the server, then the route's handler, use it on the connection's
/// thread, one after the other.
public final class HTTPStreamedBody: @unchecked Sendable {
    /// The route's consumer.
    let consumer: any HTTPBodyConsumer
    /// Why the consumer stopped reading, if it did (the rest of the body was discarded).
    private(set) var failure: (any Error)?
    /// Bytes received so far.
    package private(set) var byteCount = 0

    /// A body to be handed to `consumer`.
    package init(_ consumer: any HTTPBodyConsumer) { self.consumer = consumer }

    /// Hands the next bytes to the consumer, unless it stopped reading.
    package func receive(_ bytes: UnsafeRawBufferPointer) {
        byteCount += bytes.count
        guard failure == nil else { return }
        do {
            try consumer.receive(bytes)
        } catch {
            failure = error
        }
    }

    /// The consumer's answer, or the error that stopped it.
    package func finish() throws -> HTTPResponse {
        if let failure { throw failure }
        return try consumer.finish()
    }
}
