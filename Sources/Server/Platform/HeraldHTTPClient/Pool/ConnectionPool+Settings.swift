import HeraldModel
extension ConnectionPool {
    /// Limits and timers of one pool, in monotonic nanoseconds; made from ``HTTP2Client/Configuration``.
    struct Settings: Sendable, Equatable {
        /// Connections kept open while the client lives (not closed for being idle).
        var minConnections = 1
        /// At most this many connections at once, not counting those draining (after a GOAWAY, or beyond a lowered
        /// limit); 0 opens none.
        var maxConnections = 4
        /// Streams used at once on one connection, at most; the server's SETTINGS may allow fewer.
        var maxStreamsPerConnection = 1000
        /// A connection not ready this long after it was opened is given up (`.timeout`).
        var connectTimeout: UInt64 = 10_000_000_000
        /// A connection without streams that received nothing for this long gets a PING.
        var idlePingInterval: UInt64 = 60_000_000_000
        /// A connection with streams open that received nothing for this long gets a PING.
        var busyPingInterval: UInt64 = 5_000_000_000
        /// A PING unanswered this long marks the connection dead.
        var pingTimeout: UInt64 = 10_000_000_000
        /// A connection without streams for this long is closed, while more than `minConnections` are ready.
        var maxIdleTime: UInt64 = 300_000_000_000
        /// A request refused unprocessed more often than this fails with `.connectionReset`.
        var maxResends = 10
        /// After a connection attempt failed, no further one opens this soon while another connection is ready
        /// (the waiting requests wait for its streams instead of a server that refuses connections).
        var reconnectDelay: UInt64 = 1_000_000_000

        init() {}

        init(_ configuration: HTTP2Client.Configuration) {
            maxConnections = max(1, configuration.maxConnectionsPerHost)
            minConnections = min(max(0, configuration.minConnectionsPerHost), maxConnections)
            maxStreamsPerConnection = max(1, configuration.maxConcurrentStreamsPerConnection)
            connectTimeout = max(1, MonotonicTime.nanoseconds(configuration.connectTimeout))
            idlePingInterval = max(1, MonotonicTime.nanoseconds(configuration.idlePingInterval))
            busyPingInterval = max(1, MonotonicTime.nanoseconds(configuration.busyPingInterval))
            pingTimeout = max(1, MonotonicTime.nanoseconds(configuration.pingTimeout))
            maxIdleTime = max(1, MonotonicTime.nanoseconds(configuration.maxIdleTime))
            maxResends = max(0, configuration.maxTransparentResends)
        }
    }
}
