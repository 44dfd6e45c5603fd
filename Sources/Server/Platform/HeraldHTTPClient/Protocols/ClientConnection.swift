import CNghttp2

/// One connection of a pool, as its event loop drives it: resolve, connect (trying each address), TLS handshake,
/// then HTTP/2 (ALPN `h2`: an ``HTTP2Session``) or HTTP/1.1 (plain `http://`, or a TLS server that chose
/// `http/1.1`: an ``HTTP1Codec``). Owns the socket and the bytes waiting to be written. Confined to the loop.
///
/// It reports to its pool through the loop: ready (HTTP/2: on the server's first SETTINGS), stream events, and
/// its own end (``ClientEventLoop/connectionEnded(_:_:)``); the pool closes it with ``close()``.
final class ClientConnection {
    enum Phase {
        case resolving
        case connecting
        case handshaking
        case open
        case closed
    }

    let id: ConnectionID
    /// Index of its pool in the loop.
    let pool: Int
    let origin: Origin
    /// `unowned(unsafe)`: the loop owns its connections and closes them all before it goes.
    unowned(unsafe) let loop: ClientEventLoop
    private(set) var phase = Phase.resolving
    private var socket: ClientSocket?
    private var addresses: [SocketAddress] = []
    private var nextAddress = 0
    private var lastError: HTTPClientError?
    private(set) var session: HTTP2Session?
    private(set) var http1: HTTP1Codec?
    /// Bytes waiting to be written.
    let output = ByteBuffer(capacity: 64 * 1024)
    /// Whether it is in the loop's list of connections to flush.
    var isDirty = false
    /// The epoll events its socket is registered for; 0 when not registered.
    private var registered: UInt32 = 0

    /// Output beyond which no more frames are pulled from nghttp2 until the socket takes some.
    private static let outputHighWater = 256 * 1024
    /// Bytes read in one go before other connections get their turn.
    private static let readBudget = 1 << 20

    init(id: ConnectionID, pool: Int, origin: Origin, loop: ClientEventLoop) {
        self.id = id
        self.pool = pool
        self.origin = origin
        self.loop = loop
    }

    // MARK: Opening

    /// Starts opening: at once for an IP literal, else after resolving the name on another thread.
    func start() {
        if let address = SocketAddress.literal(origin.host, port: origin.port) {
            addresses = [address]
            connectNext()
        } else {
            loop.resolve(origin.host, port: origin.port, for: id)
        }
    }

    /// The name resolution's answer.
    func resolved(_ result: Result<[SocketAddress], HTTPClientError>) {
        guard phase == .resolving else { return }
        switch result {
        case .success(let found):
            addresses = found
            connectNext()
        case .failure(let error):
            fail(error)
        }
    }

    /// Tries the next address; fails the connection when none is left.
    private func connectNext() {
        while nextAddress < addresses.count {
            let address = addresses[nextAddress]
            nextAddress += 1
            socket = nil
            registered = 0
            let candidate: ClientSocket
            do {
                candidate = try ClientSocket(family: address.family)
            } catch {
                lastError = error
                continue
            }
            switch candidate.connect(to: address) {
            case .success(let isConnected):
                socket = candidate
                phase = .connecting
                if isConnected {
                    connected()
                } else {
                    updateInterest()
                }
                return
            case .failure(let error):
                lastError = error
            }
        }
        fail(lastError ?? HTTPClientError(code: .connectionFailed, message: "no address to connect to"))
    }

    private func connected() {
        guard let socket else { return }
        guard origin.isTLS else { return startProtocol(alpn: loop.configuration.cleartextHTTP2 ? "h2" : nil) }
        do {
            try socket.startTLS(loop.tls, host: origin.host)
        } catch {
            return fail(error)
        }
        phase = .handshaking
        continueHandshake()
    }

    private func continueHandshake() {
        guard let socket else { return }
        switch socket.handshake() {
        case .done(let alpn):
            startProtocol(alpn: alpn)
        case .wouldBlock:
            updateInterest()
        case .failed(let error):
            fail(error)
        }
    }

    private func startProtocol(alpn: String?) {
        phase = .open
        if alpn == "h2" {
            do {
                session = try HTTP2Session(connection: self)
            } catch {
                return fail(error)
            }
            loop.markDirty(self)  // the preface and our SETTINGS; ready once the server's SETTINGS arrive
        } else {
            http1 = HTTP1Codec(connection: self)
            loop.withPool(pool) { pool, actions in
                pool.connectionReady(id, maxConcurrentStreams: 1, supportsPing: false, now: loop.now, into: &actions)
            }
        }
        updateInterest()
    }

    // MARK: Events

    /// The socket is readable or writable (or in error).
    func handle(events: UInt32) {
        switch phase {
        case .connecting:
            guard let socket else { return }
            if let error = socket.connectResult() {
                lastError = error
                connectNext()
            } else {
                connected()
            }
        case .handshaking:
            continueHandshake()
        case .open:
            if events & (herald_epoll_in() | herald_epoll_err_or_hup()) != 0
                || (socket?.wantsWritable == true && events & herald_epoll_out() != 0)
            {
                readAvailable()
            }
            if phase == .open && events & herald_epoll_out() != 0 { flush() }
        case .resolving, .closed:
            break
        }
    }

    private func readAvailable() {
        guard let socket else { return }
        var total = 0
        // Past the budget only for what TLS read ahead already: the socket no longer signals those bytes.
        reading: while total < Self.readBudget || socket.hasPendingBytes {
            switch socket.read(into: loop.readBuffer, count: ClientEventLoop.readBufferSize) {
            case .bytes(let count):
                total += count
                let bytes = UnsafeRawBufferPointer(start: loop.readBuffer, count: count)
                let problem = session?.receive(bytes) ?? http1?.receive(bytes)
                if let problem { return fail(problem) }
                if phase != .open { return }
            case .wouldBlock:
                break reading
            case .closed:
                if let http1 { return http1.receivedEnd() }
                return fail(HTTPClientError(code: .connectionReset, message: "the server closed the connection"))
            case .failed(let reason):
                if let http1 { return http1.receivedEnd(reason: reason) }
                return fail(HTTPClientError(code: .connectionReset, message: "read: \(reason)"))
            }
        }
        if total > 0 {
            loop.withPool(pool) { pool, _ in pool.received(id, now: loop.now) }
            if session != nil { loop.markDirty(self) }  // acknowledgements, window updates
        }
        if let session, session.isFinished {
            fail(HTTPClientError(code: .connectionReset, message: "the HTTP/2 session ended"))
        }
    }

    /// Writes what is waiting, pulling frames from nghttp2 as the socket takes them.
    func flush() {
        guard phase == .open, let socket else { return }
        while true {
            if output.count < Self.outputHighWater, let session {
                if let error = session.produce(into: output) { return fail(error) }
            }
            if output.isEmpty { break }
            switch socket.write(output.readable) {
            case .bytes(let count):
                output.consume(count)
            case .wouldBlock:
                updateInterest()
                return
            case .closed:
                return fail(HTTPClientError(code: .connectionReset, message: "the server closed the connection"))
            case .failed(let reason):
                return fail(HTTPClientError(code: .connectionReset, message: "write: \(reason)"))
            }
        }
        updateInterest()
    }

    private func updateInterest() {
        guard let socket, phase != .closed else { return }
        var events: UInt32 = 0
        switch phase {
        case .connecting:
            events = herald_epoll_out()
        case .handshaking:
            events = socket.wantsWritable ? herald_epoll_out() : herald_epoll_in()
        default:
            events = herald_epoll_in()
            if !output.isEmpty || socket.wantsWritable { events |= herald_epoll_out() }
        }
        guard events != registered else { return }
        loop.watch(socket.fd, id: id, events: events, registered: registered)
        registered = events
    }

    // MARK: Streams

    /// Sends request `request` as stream `streamID`; `false` if the protocol refused it.
    func submit(_ request: RequestID, streamID: Int32) -> Bool {
        guard phase == .open else { return false }
        if let session { return session.submit(request, streamID: streamID) }
        if let http1 { return http1.submit(request, streamID: streamID) }
        return false
    }

    /// Abandons a stream: RST_STREAM(CANCEL) on HTTP/2; on HTTP/1.1 the connection cannot be reused, so it is
    /// drained (its pool closes it).
    func cancel(streamID: Int32) {
        if let session {
            session.cancel(streamID: streamID)
            loop.markDirty(self)
        } else {
            loop.withPool(pool) { pool, actions in pool.drain(id, now: loop.now, into: &actions) }
        }
    }

    func ping() {
        session?.ping()
    }

    // MARK: Closing

    /// Closes at the pool's request: a GOAWAY first on HTTP/2, written if the socket takes it at once.
    func close() {
        guard phase != .closed else { return }
        if let session, phase == .open {
            session.terminate()
            flush()
        }
        closeSocket()
    }

    /// Ends the connection on its own account and tells the pool.
    func fail(_ error: HTTPClientError) {
        guard phase != .closed else { return }
        closeSocket()
        loop.connectionEnded(self, error)
    }

    private func closeSocket() {
        phase = .closed
        socket = nil
        registered = 0
        output.removeAll()
        session = nil
        http1 = nil
    }
}
