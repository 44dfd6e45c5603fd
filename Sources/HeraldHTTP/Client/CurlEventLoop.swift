import CCurl
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The thread that owns a curl multi handle and runs the transfers an ``HTTP2Client`` hands to this loop.
///
/// Other threads only touch ``inbox`` (under its mutex) and the atomics; everything else is confined to
/// the thread running ``run()``, which is why this is `@unchecked Sendable`. A thread that queues work while
/// the loop sleeps (or is about to) wakes it with `curl_multi_wakeup`, under the inbox lock and only while the
/// inbox is open, so the multi handle is never woken after ``run()`` has closed the inbox and cleaned it up. A
/// loop that is busy finds the work when it next looks, without a wake-up (a pipe write and read) per batch.
final class CurlEventLoop: @unchecked Sendable {
    /// Work handed to the loop by other threads.
    struct Inbox {
        var requests: [PendingRequest] = []
        var cancellations: [RequestCancellation] = []
        var isClosed = false
        /// Set by the loop, under the lock, when it found the inbox empty and is going to wait.
        var isSleeping = false

        /// Called under the lock after adding work: whether the loop must be woken for it.
        mutating func needsWakeUp() -> Bool {
            defer { isSleeping = false }
            return isSleeping
        }
    }

    /// Requests accepted and not yet completed (queued, waiting or in flight), over all of the client's loops.
    let pending: PendingCount
    /// Sum of `CURLINFO_NUM_CONNECTS` over completed transfers.
    let connectionsOpened = Atomic<Int>(0)
    /// The thread running ``run()``, 0 before it starts.
    private let threadID = Atomic<UInt>(0)

    private let inbox = Mutex(Inbox())
    private let multi: UnsafeMutableRawPointer
    private let caBundle: CABundle
    private let settings: CurlTransfer.Settings
    private let maxConcurrentRequests: Int

    // Owned by the loop thread.
    private var idle: [CurlTransfer] = []
    private var active: [CurlTransfer] = []
    private var backlog: [PendingRequest] = []
    private var backlogHead = 0
    private var nextSweep: UInt64 = 0
    private var isMultiOpen = true

    /// How often requests are checked against their deadlines: queued ones (not yet handed to curl), and,
    /// as a backstop, transfers curl has not timed out within `deadlineGrace` of their deadline.
    private static let sweepInterval: UInt64 = 250_000_000
    private static let deadlineGrace: UInt64 = 250_000_000
    /// Idle easy handles kept beyond those in use.
    private static let spareTransfers = 64

    /// A loop of a client whose loops share `caBundle` and the `pending` count.
    init(configuration: HTTP2Client.Configuration, caBundle: CABundle, pending: PendingCount) throws(HTTPClientError) {
        self.caBundle = caBundle
        self.pending = pending
        guard let multi = curl_multi_init() else {
            throw HTTPClientError(code: .other, message: "curl_multi_init failed")
        }
        self.multi = multi
        _ = herald_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        _ = herald_curl_multi_setopt_long(
            multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, configuration.maxConnectionsPerHost))
        _ = herald_curl_multi_setopt_long(
            multi, CURLMOPT_MAX_CONCURRENT_STREAMS, max(1, configuration.maxConcurrentStreamsPerConnection))
        // curl's default cache size is 4 × the transfers in the multi handle: when traffic is light, that
        // would close idle connections to other hosts (APNs, FCM, OAuth) that are about to be needed again.
        _ = herald_curl_multi_setopt_long(
            multi, CURLMOPT_MAXCONNECTS, max(64, 32 * configuration.maxConnectionsPerHost))
        let connectTimeout = MonotonicTime.nanoseconds(configuration.connectTimeout) / 1_000_000
        settings = CurlTransfer.Settings(
            connectTimeoutMilliseconds: Int(max(1, connectTimeout)),
            maxIdleSeconds: Int(max(1, MonotonicTime.nanoseconds(configuration.maxIdleTime) / 1_000_000_000)),
            caFile: caBundle.caFile,
            clearsCAPath: caBundle.clearsCAPath,
            maxResponseBodySize: configuration.maxResponseBodySize)
        maxConcurrentRequests = configuration.effectiveMaxConcurrentRequests
    }

    deinit {
        // run() has returned, or never ran: no transfer is left in the multi handle.
        active.removeAll()
        idle.removeAll()
        if isMultiOpen { curl_multi_cleanup(multi) }
    }

    // MARK: Any thread

    /// Queues a request; `false` once the loop is closed.
    func submit(_ request: PendingRequest) -> Bool {
        inbox.withLock { inbox in
            guard !inbox.isClosed else { return false }
            inbox.requests.append(request)
            if inbox.needsWakeUp() { _ = curl_multi_wakeup(multi) }
            return true
        }
    }

    /// Asks the loop to cancel the request linked to `cancellation`.
    func cancel(_ cancellation: RequestCancellation) {
        cancellation.isCancelled.store(true, ordering: .releasing)
        inbox.withLock { inbox in
            guard !inbox.isClosed else { return }
            inbox.cancellations.append(cancellation)
            if inbox.needsWakeUp() { _ = curl_multi_wakeup(multi) }
        }
    }

    /// Tells the loop to fail everything with `.cancelled` and return from ``run()``.
    func close() {
        inbox.withLock { inbox in
            guard !inbox.isClosed else { return }
            inbox.isClosed = true
            _ = curl_multi_wakeup(multi)
        }
    }

    /// Whether the caller is the loop thread (e.g. a completion handler).
    var isCurrentThread: Bool {
        threadID.load(ordering: .acquiring) == Self.currentThreadID()
    }

    private static func currentThreadID() -> UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }

    // MARK: Loop thread

    /// Runs transfers until ``close()``; then fails whatever is left and closes every connection.
    func run() {
        threadID.store(Self.currentThreadID(), ordering: .releasing)
        var requests: [PendingRequest] = []
        var cancellations: [RequestCancellation] = []
        var running: Int32 = 0
        while true {
            let isClosed = inbox.withLock { inbox in
                inbox.isSleeping = false
                swap(&inbox.requests, &requests)
                swap(&inbox.cancellations, &cancellations)
                return inbox.isClosed
            }
            backlog.append(contentsOf: requests)
            requests.removeAll(keepingCapacity: true)
            if isClosed { break }
            for cancellation in cancellations {
                if let transfer = cancellation.transfer {
                    abort(transfer, HTTPClientError(code: .cancelled, message: "request cancelled"))
                }
            }
            cancellations.removeAll(keepingCapacity: true)

            admit()
            _ = curl_multi_perform(multi, &running)
            harvest()
            admit()

            let now = MonotonicTime.now()
            if now >= nextSweep {
                sweep(now: now)
                nextSweep = now + Self.sweepInterval
            }
            let wait = active.isEmpty && backlogHead == backlog.count ? 1000 : Int32((nextSweep - now) / 1_000_000) + 1
            let sleeps = inbox.withLock { inbox in
                inbox.isSleeping = inbox.requests.isEmpty && inbox.cancellations.isEmpty && !inbox.isClosed
                return inbox.isSleeping
            }
            // With work waiting, `curl_multi_perform` at the top reads whatever the sockets hold without blocking.
            if sleeps { _ = curl_multi_poll(multi, nil, 0, wait, nil) }
        }
        shutDown()
    }

    /// Starts queued requests while there is room.
    private func admit() {
        while backlogHead < backlog.count && active.count < maxConcurrentRequests {
            let request = backlog[backlogHead]
            backlogHead += 1
            start(request)
        }
        if backlogHead == backlog.count {
            backlog.removeAll(keepingCapacity: true)
            backlogHead = 0
        } else if backlogHead > 4096 && backlogHead * 2 > backlog.count {
            backlog.removeFirst(backlogHead)
            backlogHead = 0
        }
    }

    private func start(_ pending: PendingRequest) {
        if pending.cancellation?.isCancelled.load(ordering: .acquiring) == true {
            return deliver(pending, .failure(HTTPClientError(code: .cancelled, message: "request cancelled")))
        }
        var timeoutMilliseconds = 0
        if pending.deadline != .max {
            let now = MonotonicTime.now()
            guard pending.deadline > now else {
                return deliver(pending, .failure(Self.timeoutError))
            }
            timeoutMilliseconds = Int((pending.deadline - now + 999_999) / 1_000_000)
        }
        guard let transfer = idle.popLast() ?? CurlTransfer() else {
            return deliver(pending, .failure(HTTPClientError(code: .other, message: "curl_easy_init failed")))
        }
        if let error = transfer.prepare(pending.request, timeoutMilliseconds: timeoutMilliseconds, settings: settings) {
            idle.append(transfer)
            return deliver(pending, .failure(error))
        }
        let added = curl_multi_add_handle(multi, transfer.easy)
        guard added == CURLM_OK else {
            idle.append(transfer)
            let message = "curl_multi_add_handle: " + String(cString: curl_multi_strerror(added))
            return deliver(pending, .failure(HTTPClientError(code: .other, message: message)))
        }
        transfer.pending = pending
        pending.cancellation?.transfer = transfer
        transfer.activeIndex = active.count
        active.append(transfer)
    }

    /// Completes every transfer curl reports done.
    private func harvest() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = herald_curl_msg_result(message)
            var context: UnsafeMutableRawPointer?
            guard herald_curl_easy_getinfo_ptr(easy, CURLINFO_PRIVATE, &context) == CURLE_OK, let context else {
                continue
            }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            // `message` is invalid once the handle is removed: everything needed was read above.
            finish(transfer, code)
        }
    }

    private func finish(_ transfer: CurlTransfer, _ code: CURLcode) {
        let result: Result<HTTPClientResponse, HTTPClientError>
        if code == CURLE_OK {
            let status = transfer.responseCode
            let (headers, body) = transfer.takeResponse()
            result = .success(HTTPClientResponse(status: status, headers: headers, body: body))
        } else if code == CURLE_WRITE_ERROR && transfer.responseBodyTooLarge {
            let message = "response body larger than \(settings.maxResponseBodySize) bytes"
            result = .failure(HTTPClientError(code: .other, message: message))
        } else {
            result = .failure(HTTPClientError(curlCode: code, detail: transfer.errorBuffer))
        }
        release(transfer, result)
    }

    /// Stops a transfer before curl finished it.
    private func abort(_ transfer: CurlTransfer, _ error: HTTPClientError) {
        release(transfer, .failure(error))
    }

    /// Takes a transfer out of the multi handle, recycles it and delivers `result`.
    private func release(_ transfer: CurlTransfer, _ result: Result<HTTPClientResponse, HTTPClientError>) {
        _ = curl_multi_remove_handle(multi, transfer.easy)
        let opened = transfer.connectionsOpened
        if opened > 0 { connectionsOpened.add(opened, ordering: .relaxed) }
        let last = active.removeLast()
        if last !== transfer {
            active[transfer.activeIndex] = last
            last.activeIndex = transfer.activeIndex
        }
        transfer.activeIndex = -1
        transfer.clearResponse()
        guard let pending = transfer.pending else { return }
        transfer.pending = nil
        pending.cancellation?.transfer = nil
        idle.append(transfer)
        deliver(pending, result)
    }

    private func deliver(_ request: PendingRequest, _ result: Result<HTTPClientResponse, HTTPClientError>) {
        pending.value.subtract(1, ordering: .relaxed)
        request.completion(result)
    }

    /// Fails queued requests past their deadline and transfers curl has let run past theirs, drops
    /// cancelled queued requests, and trims idle handles.
    private func sweep(now: UInt64) {
        var index = active.count - 1
        while index >= 0 {
            let transfer = active[index]
            if let pending = transfer.pending, pending.deadline != .max, now > pending.deadline + Self.deadlineGrace {
                abort(transfer, Self.timeoutError)
            }
            index = min(index, active.count) - 1
        }
        if backlogHead < backlog.count {
            var kept: [PendingRequest] = []
            kept.reserveCapacity(backlog.count - backlogHead)
            for pending in backlog[backlogHead...] {
                if pending.deadline <= now {
                    deliver(pending, .failure(Self.timeoutError))
                } else if pending.cancellation?.isCancelled.load(ordering: .acquiring) == true {
                    deliver(pending, .failure(HTTPClientError(code: .cancelled, message: "request cancelled")))
                } else {
                    kept.append(pending)
                }
            }
            backlog = kept
            backlogHead = 0
        }
        let keep = active.count + Self.spareTransfers
        if idle.count > keep { idle.removeLast(idle.count - keep) }
    }

    /// Fails everything left with `.cancelled`, drops the easy handles and closes every connection.
    private func shutDown() {
        let error = HTTPClientError(code: .cancelled, message: "client shut down")
        while let transfer = active.last {
            abort(transfer, error)
        }
        for pending in backlog[backlogHead...] {
            deliver(pending, .failure(error))
        }
        backlog.removeAll()
        backlogHead = 0
        idle.removeAll()
        curl_multi_cleanup(multi)
        isMultiOpen = false
    }

    private static let timeoutError = HTTPClientError(code: .timeout, message: "request timed out")
}

/// `curl_global_init`, once per process, before any handle is made.
enum CurlGlobal {
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    static func initialize() { _ = initialized }
}

/// The count of a client's requests accepted and not yet completed, shared by its loops.
final class PendingCount: Sendable {
    let value = Atomic<Int>(0)
}
