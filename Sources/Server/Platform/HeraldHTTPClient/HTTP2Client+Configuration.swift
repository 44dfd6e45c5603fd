extension HTTP2Client {
    /// How an ``HTTP2Client`` connects. Every field has a default.
    ///
    /// Each event loop keeps a pool of connections per origin (scheme, host, port): between
    /// ``minConnectionsPerHost`` and ``maxConnectionsPerHost`` connections, each carrying as many streams as its
    /// server's SETTINGS_MAX_CONCURRENT_STREAMS allows (capped by ``maxConcurrentStreamsPerConnection``).
    package struct Configuration: Sendable {
        /// A PEM bundle trusted in addition to the system trust store (Herald's `HERALD_CA_FILE`), e.g. a
        /// private CA in front of a push gateway. `nil` trusts the system store only.
        package var extraCAFile: String?
        /// The PEM bundle of the system trust store. `nil` uses OpenSSL's default locations (Debian:
        /// `/etc/ssl/certs`), or the usual Linux bundle files where those are missing.
        package var systemCAFile: String?
        /// Event-loop threads, each with its own connections; requests go to them in turn. One loop spends
        /// 5–8 µs of CPU per request (bench/client), enough for ~100k requests a second against a server next
        /// door, so a second one helps only a client that sends more than that.
        package var eventLoops: Int = 1
        /// Connections per origin and event loop opened with the first request and kept open (PINGed while
        /// idle, never closed for idleness).
        package var minConnectionsPerHost: Int = 1
        /// At most this many connections per origin and event loop (not counting ones draining after a GOAWAY).
        /// A new one opens only when every open connection's streams are in use. Plain HTTP/1.1 origins get at
        /// most this many requests at once.
        package var maxConnectionsPerHost: Int = 4
        /// Streams used at once on one HTTP/2 connection, at most; the server's SETTINGS may allow fewer (APNs
        /// allows one until a request with a valid token succeeded), and the client follows them as they change.
        package var maxConcurrentStreamsPerConnection: Int = 1000
        /// Time allowed to open a connection: name resolution, TCP, TLS and the server's first SETTINGS.
        package var connectTimeout: Duration = .seconds(10)
        /// A connection beyond ``minConnectionsPerHost`` left without streams this long is closed.
        package var maxIdleTime: Duration = .seconds(300)
        /// An HTTP/2 connection without streams that received nothing for this long gets a PING.
        package var idlePingInterval: Duration = .seconds(60)
        /// An HTTP/2 connection with streams open that received nothing for this long gets a PING, so that a
        /// connection gone silent is found dead before its requests time out one by one.
        package var busyPingInterval: Duration = .seconds(5)
        /// A PING not acknowledged within this long marks the connection dead: its requests fail with
        /// ``HTTPClientError/Code/connectionReset`` (worth retrying) and it is closed.
        package var pingTimeout: Duration = .seconds(10)
        /// How often one request refused unprocessed by the server (`REFUSED_STREAM`, or above a `GOAWAY`'s last
        /// stream id) is sent again by the client itself before it fails with
        /// ``HTTPClientError/Code/connectionReset``.
        package var maxTransparentResends: Int = 10
        /// Requests accepted but not completed, queued and in flight; beyond it `execute` fails at once
        /// with ``HTTPClientError/Code/overloaded``.
        package var maxPendingRequests: Int = 100_000
        /// A response body larger than this fails the request with ``HTTPClientError/Code/other``.
        package var maxResponseBodySize: Int = 16 << 20
        /// `http://` origins speak HTTP/2 from the first byte ("prior knowledge", RFC 9113 §3.3) instead of
        /// HTTP/1.1: for a gateway on the same host that speaks cleartext HTTP/2, and for the fuzzer of the
        /// client's response handling (Tests/Fuzz/FuzzHTTP2Response), which plays the server without TLS.
        package var cleartextHTTP2 = false

        /// Creates a configuration; every parameter has a default.
        package init(
            extraCAFile: String? = nil,
            systemCAFile: String? = nil,
            maxConnectionsPerHost: Int = 4,
            maxConcurrentStreamsPerConnection: Int = 1000,
            connectTimeout: Duration = .seconds(10),
            maxIdleTime: Duration = .seconds(300),
            maxPendingRequests: Int = 100_000,
            maxResponseBodySize: Int = 16 << 20
        ) {
            self.extraCAFile = extraCAFile
            self.systemCAFile = systemCAFile
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxConcurrentStreamsPerConnection = maxConcurrentStreamsPerConnection
            self.connectTimeout = connectTimeout
            self.maxIdleTime = maxIdleTime
            self.maxPendingRequests = maxPendingRequests
            self.maxResponseBodySize = maxResponseBodySize
        }
    }
}
