import CNghttp2

/// The nghttp2 client session of one connection: requests become streams (`nghttp2_submit_request`, the body
/// read straight from the request by a data provider), bytes in go to `nghttp2_session_mem_recv`, frames out come
/// from `nghttp2_session_mem_send`. Its callbacks (``HTTP2Callbacks``) reach it through an unretained pointer and
/// only record what they see: response parts go to the request's slot, stream and connection events to the pool.
///
/// Windows: 1 MiB per stream (SETTINGS_INITIAL_WINDOW_SIZE) and 16 MiB for the connection
/// (`nghttp2_session_set_local_window_size`), so answers never wait for a WINDOW_UPDATE; server push is off.
///
/// SETTINGS_NO_RFC7540_PRIORITIES (RFC 9218) turns off nghttp2's RFC 7540 priority tree, which Herald has no use
/// for (every request is equal). Measured against the 40 ms provider, 16 alternating runs each: the server spent a
/// quarter more a request on Herald's traffic than on h2load's in 7 runs without the setting and in 1 with it, and
/// 9 runs against 15 met 80 % of h2load; Herald's own CPU a push did not change (0.99, side by side). A server that
/// does not know the setting ignores it (RFC 9113 §6.5.2).
final class HTTP2Session {
    /// `unowned(unsafe)`: the connection owns the session and outlives it; no reference counting per callback.
    unowned(unsafe) let connection: ClientConnection
    private var session: OpaquePointer?
    /// Whether the server's first SETTINGS arrived (the pool was told the connection is ready).
    var isReady = false
    /// The last stream ``request(onStream:)`` found, and its request.
    private var lastStream: (id: Int32, request: RequestID)?
    /// The fields that went out with indexing on this connection (``HTTP2RequestHeaders``).
    private var namedFields = HTTP2RequestHeaders.NamedFields()

    static let streamWindow: UInt32 = 1 << 20
    static let connectionWindow: Int32 = 1 << 24

    init(connection: ClientConnection) throws(HTTPClientError) {
        self.connection = connection
        var session: OpaquePointer?
        let context = Unmanaged.passUnretained(self).toOpaque()
        let http2 = connection.loop.http2
        guard nghttp2_session_client_new2(&session, http2.callbacks, context, http2.option) == 0, let session else {
            throw HTTPClientError(code: .other, message: "nghttp2_session_client_new2 failed")
        }
        self.session = session
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: Self.streamWindow),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES.rawValue), value: 1),
        ]
        guard nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0,
            nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Self.connectionWindow)
                == 0
        else {
            throw HTTPClientError(code: .other, message: "cannot submit HTTP/2 SETTINGS")
        }
    }

    deinit {
        nghttp2_session_del(session)
    }

    var loop: ClientEventLoop { connection.loop }

    /// Neither side has anything more to say (after GOAWAYs both ways).
    var isFinished: Bool {
        nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
    }

    /// Processes received bytes; an error ends the connection.
    func receive(_ bytes: UnsafeRawBufferPointer) -> HTTPClientError? {
        let consumed = nghttp2_session_mem_recv(
            session, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count)
        guard consumed < 0 else { return nil }
        return HTTPClientError(
            code: .connectionReset, message: "HTTP/2: " + String(cString: nghttp2_strerror(Int32(consumed))),
            http2ErrorCode: .protocolError)
    }

    /// Appends the frames nghttp2 has to send to `output`, up to a high-water mark.
    func produce(into output: ByteBuffer) -> HTTPClientError? {
        while output.count < 512 * 1024 {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 {
                return HTTPClientError(
                    code: .connectionReset, message: "HTTP/2: " + String(cString: nghttp2_strerror(Int32(count))))
            }
            guard count > 0, let data else { return nil }
            output.append(UnsafeRawBufferPointer(start: data, count: count))
        }
        return nil
    }

    /// Submits `request` as a stream; `false` if nghttp2 refused it or numbered it other than `streamID`.
    func submit(_ request: RequestID, streamID: Int32) -> Bool {
        let loop = self.loop
        let slot = RequestSlot.index(of: request)
        guard let pending = loop.slots[slot].pending else { return false }
        HTTP2RequestHeaders.build(
            pending, origin: connection.origin, text: loop.headerScratch, into: &loop.nameValueScratch,
            named: &namedFields)
        let context = UnsafeMutableRawPointer(bitPattern: request.rawValue)
        let assigned: Int32 = loop.nameValueScratch.withUnsafeBufferPointer { nva in
            if pending.request.body.isEmpty {
                return nghttp2_submit_request(session, nil, nva.baseAddress, nva.count, nil, context)
            }
            var provider = herald_nghttp2_data_provider(context, HTTP2Callbacks.readBody)
            return nghttp2_submit_request(session, nil, nva.baseAddress, nva.count, &provider, context)
        }
        guard assigned == streamID else {
            if assigned > 0 {
                _ = nghttp2_submit_rst_stream(
                    session, UInt8(NGHTTP2_FLAG_NONE.rawValue), assigned, UInt32(NGHTTP2_CANCEL.rawValue))
            }
            return false
        }
        return true
    }

    func cancel(streamID: Int32) {
        _ = nghttp2_submit_rst_stream(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, UInt32(NGHTTP2_CANCEL.rawValue))
    }

    func ping() {
        _ = nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
    }

    /// Queues a GOAWAY(NO_ERROR): the connection is being closed.
    func terminate() {
        _ = nghttp2_session_terminate_session(session, UInt32(NGHTTP2_NO_ERROR.rawValue))
    }

    /// The request a stream carries (its stream user data).
    func request(onStream streamID: Int32) -> RequestID? {
        // A response's callbacks (its header block's start, each field, its end, its data, its close) come for one
        // stream in a row, and each lookup is a probe of nghttp2's stream map (~9 a response, most of them cache
        // misses among a thousand streams). Stream ids are never reused, and a closed stream's entry is dropped.
        if let lastStream, lastStream.id == streamID { return lastStream.request }
        guard let pointer = nghttp2_session_get_stream_user_data(session, streamID) else { return nil }
        let request = RequestID(rawValue: Int(bitPattern: pointer))
        lastStream = (streamID, request)
        return request
    }

    /// Forgets the stream the last lookup found, once it is closed.
    func forgetStream(_ streamID: Int32) {
        if lastStream?.id == streamID { lastStream = nil }
    }

    /// The server's current SETTINGS_MAX_CONCURRENT_STREAMS.
    var peerMaxConcurrentStreams: Int {
        Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
    }
}
