import Foundation

extension HTTPServer {
    /// Where to listen and the limits to enforce.
    package struct Configuration: Sendable {
        /// Address to bind (numeric IPv4/IPv6 or a resolvable name).
        package var host: String = "127.0.0.1"
        /// Port to bind; 0 picks a free one (see `HTTPServer.port`).
        package var port: Int = 8080
        /// Bind with SO_REUSEPORT, so that other processes doing the same share the port (the kernel splits
        /// connections between them). Off: a port another socket holds is an error.
        package var reusePort = false
        /// A socket already bound and listening (`HTTPServer.listen`) to serve instead of binding `host`:`port`.
        /// The server owns it from `start()` on.
        package var listeningSocket: Int32?
        /// Threads serving connections, each with its own epoll set.
        package var threadCount: Int = max(4, ProcessInfo.processInfo.activeProcessorCount * 2)
        /// A connection idle longer than this is closed.
        package var connectionTimeout: Duration = .seconds(30)
        /// A request body must arrive within this, plus the time its bytes so far take at `minimumBodyRate`, from
        /// its request line; past that the connection is closed. A client trickling a byte now and then, never
        /// idle long enough for `connectionTimeout`, cannot hold a connection for ever, while a large upload on a
        /// slow link that keeps up the rate is not cut off.
        package var bodyTimeout: Duration = .seconds(60)
        /// Bytes a second a body must keep up beyond `bodyTimeout` (16 KiB/s: 50 MB of video in under an hour).
        package var minimumBodyRate: Int = 16 * 1024
        /// Largest accepted request body, unless `bodyLimit` names another for the request.
        package var maxBodySize: Int = 1 << 20
        /// A request's own body limit, from its method, path (as received, without the query: what the router
        /// matches, so still percent-encoded) and headers, when it is not `maxBodySize`: return nil to keep
        /// `maxBodySize`. Asked at most once per request, only for requests that carry a body, before any of it is
        /// read: an upload route can take 50 MB from an authorised caller while everything else keeps 1 MiB.
        ///
        /// ```swift
        /// configuration.bodyLimit = { method, path, header in
        ///     method == .post && path.hasSuffix("/media") && header("authorization") == expected ? 50 << 20 : nil
        /// }
        /// ```
        package var bodyLimit: @Sendable (_ method: HTTPMethod, _ path: String, _ header: (String) -> String?) -> Int? =
            {
                _, _, _ in nil
            }
        /// Most header fields accepted in one request.
        package var maxHeaderCount: Int = 100
        /// Most bytes of header fields (names and values) in a request: a JSON 431 beyond.
        package var maxHeaderBytes: Int = 32 * 1024
        /// Per-connection memory for the request head and buffers. Larger than `maxHeaderBytes`, so that heads up
        /// to it and somewhat beyond reach Herald's own JSON 431; libmicrohttpd answers a head that does not fit
        /// at all itself (with its own HTML body).
        package var connectionMemoryLimit: Int = 64 * 1024
        /// Most connections at once, besides the reserve (`reservedConnections`).
        package var connectionLimit: Int = 10_000
        /// Connections kept beyond `connectionLimit` for `reservedPaths` only: when every ordinary place is taken,
        /// a monitor still reaches `/healthz` and `/metrics`; anything else there is answered 503 with `Retry-After`.
        package var reservedConnections: Int = 64
        /// The paths a reserved connection is served for.
        package var reservedPaths: Set<String> = ["/healthz", "/metrics"]
        /// Most connections open at once from one client address; the next are answered 503 with `Retry-After`.
        /// A trusted proxy's connections are not counted (they carry everyone's).
        package var perAddressConnectionLimit: Int = 256
        /// The proxies whose `Forwarded` / `X-Forwarded-For` say who the client is (`HTTPRequest.remoteAddress`).
        package var trustedProxies: TrustedProxies = .none
        /// A connection must deliver its whole request head within this (from its accept, or from the end of the
        /// previous request when kept alive), however steadily it trickles: past it the connection is closed.
        /// Reserved and refused connections have at most 2 s.
        package var headTimeout: Duration = .seconds(10)
        /// When stopping, how long requests in flight may take to finish (new ones are answered 503 meanwhile).
        package var gracePeriod: Duration = .seconds(10)
        /// Threads running offloaded routes (`Router.add(…, offloaded: true)`), started as needed: by default one
        /// core fewer than the machine has, so that the HTTP threads always keep one.
        package var workerThreadCount: Int = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)
        /// Offloaded requests waiting for a worker beyond those running; the next is answered 503 with
        /// `Retry-After` at once.
        package var workerQueueLimit: Int = 256

        /// The defaults, with any value overridden.
        package init(host: String = "127.0.0.1", port: Int = 8080) {
            self.host = host
            self.port = port
        }
    }

    /// Why the server could not start.
    package struct StartError: Error, CustomStringConvertible {
        /// What failed.
        package let description: String
    }
}
