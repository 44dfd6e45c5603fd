import CMicroHTTPD
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The C trampolines: libmicrohttpd's callbacks, each hopping into the server (its context pointer, unretained: the
/// server outlives its daemon) or into the request's `RequestState` (retained from the URI callback until the
/// request completes).
extension HTTPServer {
    /// A request line arrived: the request is counted in flight and gets its `RequestState`.
    static let uriLogger:
        @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?)
            -> UnsafeMutableRawPointer? = { context, uri, _ in
                let server = Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue()
                server.inFlight.add(1, ordering: .relaxed)
                let state = RequestState(target: uri.map { String(cString: $0) } ?? "/")
                return Unmanaged.passRetained(state).toOpaque()
            }

    /// A connection opened or closed: the connection guard hears of it.
    static let connectionNotifier: MHD_NotifyConnectionCallback = { context, connection, _, code in
        guard let context, let connection else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        let socket = herald_mhd_connection_fd(connection)
        guard socket >= 0 else { return }
        if code.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
            server.connectionGuard.opened(socket: socket, address: server.remoteAddress(connection) ?? "")
        } else {
            server.connectionGuard.closed(socket: socket)
        }
    }

    /// A request completed (answered, or its connection gone): its state is released and it leaves the count in
    /// flight; a kept-alive connection waits for its next head from now.
    static let completedHandler: MHD_RequestCompletedCallback = { context, connection, stateSlot, _ in
        if let context, let connection {
            let socket = herald_mhd_connection_fd(connection)
            if socket >= 0 {
                Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().connectionGuard.requestCompleted(
                    socket: socket)
            }
        }
        guard let stateSlot, let pointer = stateSlot.pointee else { return }
        let state = Unmanaged<RequestState>.fromOpaque(pointer)
        let counted = state.takeUnretainedValue().counted
        state.release()
        stateSlot.pointee = nil
        if counted {
            Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue().completedOne()
        }
    }

    /// Each of libmicrohttpd's calls for a request: on to `handle` with the request's state.
    static let accessHandler: MHD_AccessHandlerCallback = {
        context, connection, _, method, version, uploadData, uploadSize, stateSlot in
        let server = Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue()
        guard let connection, let stateSlot, let uploadSize else { return .NO }
        if stateSlot.pointee == nil {  // no URI callback happened: cannot, but never crash on it
            server.inFlight.add(1, ordering: .relaxed)
            stateSlot.pointee = Unmanaged.passRetained(RequestState(target: "/")).toOpaque()
        }
        let state = Unmanaged<RequestState>.fromOpaque(stateSlot.pointee!).takeUnretainedValue()
        return server.handle(
            connection, method: method, version: version, upload: uploadData, size: uploadSize, state: state)
    }

    /// Adds each header field to the `RequestHead` at `context`.
    static let headReader: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
        guard let context, let key else { return .YES }
        let head = context.assumingMemoryBound(to: RequestHead.self)
        head.pointee.bytes += keySize + valueSize + 4
        if let value {
            if HTTPHeadChecks.hasControlBytes(UnsafeRawBufferPointer(start: value, count: valueSize)) {
                head.pointee.controlBytes = true
            }
            head.pointee.placements.append(
                HTTPHeadChecks.FieldPlacement(
                    name: Int(bitPattern: key), nameCount: keySize, value: Int(bitPattern: value),
                    valueCount: valueSize))
        }
        if strcasecmp(key, "Content-Length") == 0 {
            head.pointee.addContentLength(value.map { String(cString: $0) } ?? "")
        } else if strcasecmp(key, "Transfer-Encoding") == 0 {
            head.pointee.transferEncodings.append(value.map { String(cString: $0) } ?? "")
        }
        return .YES
    }

    /// Adds each header field to the `HeaderCollector` at `context`.
    static let headerIterator: MHD_KeyValueIterator = { context, _, key, value in
        guard let context, let key else { return .YES }
        let collector = context.assumingMemoryBound(to: HeaderCollector.self)
        collector.pointee.fields.append((String(cString: key).lowercased(), value.map { String(cString: $0) } ?? ""))
        return .YES
    }
}
