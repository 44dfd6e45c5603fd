import CMicroHTTPD
import Foundation

/// Offload: a route slow on the CPU (`Router.add(…, offloaded: true)`) runs on one of the server's workers while
/// its connection is suspended, so that the HTTP thread serving it goes on serving its other connections.
extension HTTPServer {
    /// Runs `request` on a worker while its connection is suspended; the worker resumes it with the answer, which
    /// is queued on the next call for the request (`handle`). With every worker busy and the queue full, a 503.
    func offload(
        _ request: HTTPRequest, _ connection: OpaquePointer, method: UnsafePointer<CChar>?, state: RequestState
    ) -> MHD_Result {
        let offload = Offload(connection: connection, requestID: request.id)
        let key = ObjectIdentifier(offload)
        // Held until the connection is suspended: a worker done sooner waits here to resume it.
        offload.lock.lock()
        let accepted =
            suspended.withLock { registry in
                guard registry != nil else { return false }
                registry![key] = offload
                return true
            }
            && workers.submit { [self] in
                guard offload.start() else { return }
                let response: HTTPResponse
                do {
                    response = try responder.respond(to: request)
                } catch {
                    response = ErrorMiddleware.response(for: error, to: request, logger: logger)
                }
                suspended.withLock { _ = $0?.removeValue(forKey: key) }
                offload.answer(response)
            }
        if accepted {
            state.offload = offload
            MHD_suspend_connection(connection)
        }
        offload.lock.unlock()
        guard accepted else {
            suspended.withLock { _ = $0?.removeValue(forKey: key) }
            let response = Self.workersBusy
            responder.refused(request, with: response)
            return queue(response, on: connection, requestID: request.id)
        }
        return .YES
    }

    /// The 503 for an offloaded request when every worker is busy and the queue full.
    static var workersBusy: HTTPResponse {
        var response = HTTPError(.serviceUnavailable, field: "base", "server busy; retry later").response
        response.headers.append((name: "retry-after", value: "1"))
        return response
    }

    /// An offloaded request, between its worker and the HTTP thread its connection belongs to: the worker's answer
    /// is handed over and the connection resumed under `lock`, and a stopping server abandons it under the same
    /// lock, so that a connection is resumed exactly once, and never after the daemon stopped.
    final class Offload: @unchecked Sendable {  // `phase` is guarded by `lock`
        enum Phase {
            /// Waiting for a worker.
            case queued
            /// On a worker.
            case running
            case answered(HTTPResponse)
            /// Given up by a stopping server: answered 503, and the worker's answer (if it comes) dropped.
            case abandoned
        }

        let lock = NSLock()
        private(set) var phase = Phase.queued
        /// The suspended connection: valid until resumed.
        private let connection: OpaquePointer
        let requestID: String

        init(connection: OpaquePointer, requestID: String) {
            self.connection = connection
            self.requestID = requestID
        }

        /// Called by the worker before it runs the request: false when it is no longer wanted (abandoned by a stop
        /// before the worker got to it), and then it must not run.
        func start() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            guard case .queued = phase else { return false }
            phase = .running
            return true
        }

        /// Hands over `response` and resumes the connection, unless abandoned meanwhile.
        func answer(_ response: HTTPResponse) {
            lock.lock()
            defer { lock.unlock() }
            guard case .running = phase else { return }
            phase = .answered(response)
            MHD_resume_connection(connection)
        }

        /// Gives up on the worker's answer and resumes the connection, unless answered already (or, with
        /// `onlyQueued`, unless a worker has started on it).
        func abandon(onlyQueued: Bool = false) {
            lock.lock()
            defer { lock.unlock() }
            switch phase {
            case .queued: break
            case .running where !onlyQueued: break
            default: return
            }
            phase = .abandoned
            MHD_resume_connection(connection)
        }

        /// What to send now that the connection is resumed.
        var response: HTTPResponse {
            lock.lock()
            defer { lock.unlock() }
            if case .answered(let response) = phase { return response }
            var response = HTTPError(.serviceUnavailable, field: "base", "shutting down").response
            response.headers += [(name: "retry-after", value: "1"), (name: "connection", value: "close")]
            return response
        }
    }
}
