extension HTTP2Client {
    /// How an ``HTTP2Client`` connects. Every field has a default.
    public struct Configuration: Sendable {
        /// A PEM bundle trusted in addition to the system trust store (Herald's `HERALD_CA_FILE`), e.g. a
        /// private CA in front of a push gateway. `nil` trusts the system store only.
        public var extraCAFile: String?
        /// The PEM bundle of the system trust store, combined with ``extraCAFile`` when that is set. `nil`
        /// asks curl for its built-in bundle, then tries the usual Linux locations.
        public var systemCAFile: String?
        /// Event-loop threads, each driving its own curl multi handle and connections; requests go to them in
        /// turn. One loop spends ~45 µs of CPU per request (most of it in libcurl), so one thread caps a client
        /// near 20k requests a second; a second loop lets a busy client use a second core.
        public var eventLoops: Int = 1
        /// At most this many connections per host and port, per event loop. A new one opens only when every
        /// open connection's streams are in use. Plain HTTP/1.1 hosts get at most this many requests at once.
        public var maxConnectionsPerHost: Int = 4
        /// Streams used at once on one HTTP/2 connection; the server's SETTINGS may lower it.
        public var maxConcurrentStreamsPerConnection: Int = 1000
        /// Time allowed to open a connection, TLS handshake included (capped by each request's timeout).
        public var connectTimeout: Duration = .seconds(10)
        /// An open connection left unused this long is closed rather than reused (`CURLOPT_MAXAGE_CONN`,
        /// which curl otherwise sets to 118 s). TCP keepalive runs meanwhile.
        public var maxIdleTime: Duration = .seconds(3600)
        /// Requests accepted but not completed, queued and in flight; beyond it `execute` fails at once
        /// with ``HTTPClientError/Code/overloaded``.
        public var maxPendingRequests: Int = 100_000
        /// Requests handed to curl at once by one event loop, over all hosts; the rest wait in its queue in order.
        /// `nil` means `maxConnectionsPerHost × maxConcurrentStreamsPerConnection`.
        public var maxConcurrentRequests: Int?
        /// A response body larger than this fails the request with ``HTTPClientError/Code/other``.
        public var maxResponseBodySize: Int = 16 << 20

        /// Creates a configuration; every parameter has a default.
        public init(
            extraCAFile: String? = nil,
            systemCAFile: String? = nil,
            maxConnectionsPerHost: Int = 4,
            maxConcurrentStreamsPerConnection: Int = 1000,
            connectTimeout: Duration = .seconds(10),
            maxIdleTime: Duration = .seconds(3600),
            maxPendingRequests: Int = 100_000,
            maxConcurrentRequests: Int? = nil,
            maxResponseBodySize: Int = 16 << 20
        ) {
            self.extraCAFile = extraCAFile
            self.systemCAFile = systemCAFile
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxConcurrentStreamsPerConnection = maxConcurrentStreamsPerConnection
            self.connectTimeout = connectTimeout
            self.maxIdleTime = maxIdleTime
            self.maxPendingRequests = maxPendingRequests
            self.maxConcurrentRequests = maxConcurrentRequests
            self.maxResponseBodySize = maxResponseBodySize
        }

        /// The concurrency limit actually applied.
        var effectiveMaxConcurrentRequests: Int {
            max(1, maxConcurrentRequests ?? maxConnectionsPerHost * maxConcurrentStreamsPerConnection)
        }
    }
}
