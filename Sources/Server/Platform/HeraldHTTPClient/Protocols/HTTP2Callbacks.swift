import CNghttp2

/// nghttp2's callback table and session options, made once per event loop and shared by its sessions.
///
/// The callbacks find their ``HTTP2Session`` through the session's user data (an unretained pointer; the
/// connection keeps the session alive while nghttp2 runs) and the request through the stream's user data (its
/// ``RequestID``). They record and return: nothing here sends, closes or completes anything.
final class HTTP2Callbacks {
    let callbacks: OpaquePointer
    let option: OpaquePointer

    init() throws(HTTPClientError) {
        var callbacks: OpaquePointer?
        var option: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks,
            nghttp2_option_new(&option) == 0, let option
        else {
            throw HTTPClientError(code: .other, message: "cannot set up nghttp2")
        }
        self.callbacks = callbacks
        self.option = option
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, Self.onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, Self.onHeader)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, Self.onFrameReceived)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, Self.onDataChunk)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, Self.onStreamClose)
    }

    deinit {
        nghttp2_session_callbacks_del(callbacks)
        nghttp2_option_del(option)
    }

    /// Runs `body` with the session nghttp2 calls back for, without retaining it: nghttp2 calls back only from
    /// within `nghttp2_session_mem_recv`/`mem_send`, which the session's own methods call, so their caller holds it
    /// for the whole call (a retain and release per header field showed in profiles).
    private static func withSession<Result>(
        _ userData: UnsafeMutableRawPointer?, _ body: (HTTP2Session) -> Result
    ) -> Result {
        Unmanaged<HTTP2Session>.fromOpaque(userData!)._withUnsafeGuaranteedRef(body)
    }

    private static let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
        guard let frame else { return 0 }
        HTTP2Callbacks.withSession(userData) { session in
            if let request = session.request(onStream: herald_nghttp2_frame_stream_id(frame)) {
                session.loop.responseHeadersBegin(request)
            }
        }
        return 0
    }

    private static let onHeader: nghttp2_on_header_callback = {
        _, frame, name, nameLength, value, valueLength, _, userData in
        guard let frame, let name, let value else { return 0 }
        HTTP2Callbacks.withSession(userData) { session in
            guard let request = session.request(onStream: herald_nghttp2_frame_stream_id(frame)) else { return }
            session.loop.responseHeader(
                request, name: UnsafeRawBufferPointer(start: name, count: nameLength),
                value: UnsafeRawBufferPointer(start: value, count: valueLength))
        }
        return 0
    }

    private static let onFrameReceived: nghttp2_on_frame_recv_callback = { _, frame, userData in
        guard let frame else { return 0 }
        HTTP2Callbacks.withSession(userData) { $0.frameReceived(frame) }
        return 0
    }

    private static let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
        guard let data else { return 0 }
        HTTP2Callbacks.withSession(userData) { session in
            if let request = session.request(onStream: streamID) {
                session.loop.responseBody(request, UnsafeRawBufferPointer(start: data, count: length))
            }
        }
        return 0
    }

    private static let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, errorCode, userData in
        HTTP2Callbacks.withSession(userData) {
            $0.streamClosed(streamID, errorCode: HTTP2ErrorCode(rawValue: errorCode))
        }
        return 0
    }

    /// The data provider of request bodies: copies the next bytes of the request named by the source.
    static let readBody: nghttp2_data_source_read_callback = { _, _, buffer, length, flags, source, userData in
        guard let buffer, let flags, let source else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let request = RequestID(rawValue: Int(bitPattern: herald_nghttp2_data_source_pointer(source)))
        let read = HTTP2Callbacks.withSession(userData) { $0.loop.readBody(request, into: buffer, capacity: length) }
        guard let (count, done) = read else {
            return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        if done { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }
}

extension HTTP2Session {
    /// A complete frame arrived: SETTINGS (the stream budget), GOAWAY, a PING acknowledgement, or the end of a
    /// response's headers or body.
    func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) {
        let type = UInt32(herald_nghttp2_frame_type(frame))
        let flags = UInt32(herald_nghttp2_frame_flags(frame))
        let loop = self.loop
        let id = connection.id
        switch type {
        case NGHTTP2_HEADERS.rawValue:
            if let request = request(onStream: herald_nghttp2_frame_stream_id(frame)) {
                loop.responseHeadersEnd(request, endsStream: flags & NGHTTP2_FLAG_END_STREAM.rawValue != 0)
            }
        case NGHTTP2_DATA.rawValue:
            if flags & NGHTTP2_FLAG_END_STREAM.rawValue != 0,
                let request = request(onStream: herald_nghttp2_frame_stream_id(frame))
            {
                loop.responseEnded(request)
            }
        case NGHTTP2_SETTINGS.rawValue where flags & NGHTTP2_FLAG_ACK.rawValue == 0:
            let limit = peerMaxConcurrentStreams
            if isReady {
                loop.withPool(connection.pool) { pool, actions in
                    pool.settingsChanged(id, maxConcurrentStreams: limit, now: loop.now, into: &actions)
                }
            } else {
                isReady = true
                loop.withPool(connection.pool) { pool, actions in
                    pool.connectionReady(
                        id, maxConcurrentStreams: limit, supportsPing: true, now: loop.now, into: &actions)
                }
            }
        case NGHTTP2_GOAWAY.rawValue:
            let length = min(256, herald_nghttp2_goaway_debug_length(frame))
            let debug = herald_nghttp2_goaway_debug_data(frame).map {
                String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
            }
            let lastStreamID = herald_nghttp2_goaway_last_stream_id(frame)
            let code = HTTP2ErrorCode(rawValue: herald_nghttp2_goaway_error_code(frame))
            loop.withPool(connection.pool) { pool, actions in
                pool.goAwayReceived(
                    id, lastStreamID: lastStreamID, errorCode: code, debugData: debug ?? "", now: loop.now,
                    into: &actions)
            }
        case NGHTTP2_PING.rawValue where flags & NGHTTP2_FLAG_ACK.rawValue != 0:
            loop.withPool(connection.pool) { pool, _ in pool.pingAcknowledged(id, now: loop.now) }
        default:
            break
        }
    }

    /// A stream ended: the pool decides what it means for its request (answered, sent again, failed).
    func streamClosed(_ streamID: Int32, errorCode: HTTP2ErrorCode) {
        let loop = self.loop
        let request = request(onStream: streamID)
        forgetStream(streamID)
        let complete = request.map { loop.isComplete($0) } ?? false
        let id = connection.id
        let answered = loop.withPool(connection.pool) { pool, actions in
            pool.streamClosed(
                id, streamID: streamID, responseComplete: complete, errorCode: errorCode, now: loop.now,
                into: &actions)
        }
        if let answered { loop.answered.append(answered) }
    }
}
