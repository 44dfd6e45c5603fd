extension HTTP2Client {
    /// What the client's connections have learned so far, summed over its event loops and origins. Each APNs
    /// credential has a client of its own, so these are per credential there: a provider can slow down the one
    /// credential whose connections were sent away with ``HTTP2ErrorCode/enhanceYourCalm``.
    package struct Statistics: Sendable, Equatable {
        /// Connections opened (attempts, failed ones included).
        package var connectionsOpened = 0
        /// Connection attempts that failed before the connection was ready (connect, TLS, first SETTINGS).
        package var connectionFailures = 0
        /// Streams the server refused with `RST_STREAM(REFUSED_STREAM)` (or a reused HTTP/1.1 connection closed
        /// before answering), sent again by the client without the caller seeing a failure.
        package var refusedStreamResends = 0
        /// Streams above a `GOAWAY`'s last stream id, sent again on another connection.
        package var goAwayResends = 0
        /// `GOAWAY` frames received.
        package var goAwaysReceived = 0
        /// `GOAWAY` frames received with a code other than ``HTTP2ErrorCode/noError`` (e.g. `ENHANCE_YOUR_CALM`).
        package var goAwayErrors = 0
        /// The latest `GOAWAY` received.
        package var lastGoAway: GoAway?
        /// Connections found dead: a PING not acknowledged within ``Configuration/pingTimeout``.
        package var deadConnections = 0
        /// Streams that failed because the server reset them before the response was complete.
        package var streamsReset = 0

        /// No counts yet.
        package init() {}

        /// Adds the counts of `other`; the later `GOAWAY` of the two is kept.
        mutating func add(_ other: Statistics) {
            connectionsOpened += other.connectionsOpened
            connectionFailures += other.connectionFailures
            refusedStreamResends += other.refusedStreamResends
            goAwayResends += other.goAwayResends
            goAwaysReceived += other.goAwaysReceived
            goAwayErrors += other.goAwayErrors
            deadConnections += other.deadConnections
            streamsReset += other.streamsReset
            if let theirs = other.lastGoAway, theirs.receivedAt >= (lastGoAway?.receivedAt ?? 0) {
                lastGoAway = theirs
            }
        }
    }

    /// A `GOAWAY` frame a server sent.
    package struct GoAway: Sendable, Equatable {
        /// Why the server sends the connection away; ``HTTP2ErrorCode/noError`` for a graceful shutdown.
        package var errorCode: HTTP2ErrorCode
        /// The highest stream the server may still answer; the client sent later ones again elsewhere.
        package var lastStreamID: Int32
        /// The frame's debug data as text (APNs sends JSON such as `{"reason":"Shutdown"}`), at most 256 bytes.
        package var debugData: String
        /// When it arrived, in the client's monotonic nanoseconds: orders the `GOAWAY`s of several loops.
        var receivedAt: UInt64

        init(errorCode: HTTP2ErrorCode, lastStreamID: Int32, debugData: String, receivedAt: UInt64) {
            self.errorCode = errorCode
            self.lastStreamID = lastStreamID
            self.debugData = debugData
            self.receivedAt = receivedAt
        }
    }
}
