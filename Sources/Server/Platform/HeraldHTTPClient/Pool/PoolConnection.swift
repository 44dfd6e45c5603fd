/// One connection as a ``ConnectionPool`` sees it: its state, its stream budget, the streams it carries and its
/// PING timers. Times are monotonic nanoseconds from the pool's caller.
struct PoolConnection: Sendable {
    /// Where a connection is in its life. A closed connection is removed from the pool.
    enum State: Sendable, Equatable {
        /// Resolving, connecting, TLS, or waiting for the server's first SETTINGS.
        case connecting
        /// Takes new streams while it has room.
        case ready
        /// Finishes its streams and takes no new ones (after a GOAWAY, an HTTP/1.1 `Connection: close`, or when
        /// stream ids run out); closed when the last one ends.
        case draining
    }

    /// A request the pool is responsible for: waiting for a stream, or sent on one.
    struct Entry: Sendable, Equatable {
        var request: RequestID
        /// Monotonic nanoseconds after which it fails with `.timeout`; `UInt64.max` for none.
        var deadline: UInt64
        /// How often the server refused it unprocessed and it was sent again.
        var resends = 0
    }

    /// The last stream id a client may use (2³¹ − 1).
    static let maxStreamID = Int(Int32.max)

    let id: ConnectionID
    var state = State.connecting
    /// When the connection attempt started.
    let openedAt: UInt64
    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS, as last announced.
    var peerMaxConcurrentStreams = 0
    /// Open streams by id.
    var streams: [Int32: Entry] = [:]
    /// The id the next stream gets.
    var nextStreamID = 1
    /// When anything was last received on it (for PINGs).
    var lastReceived: UInt64
    /// When the unanswered PING was sent, if one is out.
    var pingSentAt: UInt64?
    /// When its last stream ended (or it became ready), for closing idle connections.
    var idleSince: UInt64
    /// HTTP/2 connections answer PINGs; HTTP/1.1 ones have none.
    var supportsPing = true
    /// Responses completed on it.
    var completedStreams = 0
    /// The GOAWAY received, if any.
    var goAway: (lastStreamID: Int32, errorCode: HTTP2ErrorCode)?

    init(id: ConnectionID, now: UInt64) {
        self.id = id
        openedAt = now
        lastReceived = now
        idleSince = now
    }

    /// Streams it may have open at once: the server's limit, capped by ours.
    func capacity(cap: Int) -> Int { min(peerMaxConcurrentStreams, cap) }

    /// Streams it can take now.
    func freeStreams(cap: Int) -> Int { state == .ready ? max(0, capacity(cap: cap) - streams.count) : 0 }
}
