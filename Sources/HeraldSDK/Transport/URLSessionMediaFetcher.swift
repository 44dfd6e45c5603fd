import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real media fetcher: a `URLSession` data task whose chunks are handed over one at a time. When more than
/// `bufferedBytesLimit` bytes wait unread the task is suspended, and resumed once they are read, so memory stays
/// bounded however large or fast the download. Redirects are followed only to https (or an allowed plain-http
/// host).
public struct URLSessionMediaFetcher: MediaFetcher {
    private let bufferedBytesLimit: Int
    private let plainHTTPHosts: Set<String>

    /// A fetcher holding at most about `bufferedBytesLimit` unread bytes.
    public init(bufferedBytesLimit: Int = 1 << 20, plainHTTPHosts: Set<String> = []) {
        self.bufferedBytesLimit = max(16 * 1024, bufferedBytesLimit)
        self.plainHTTPHosts = plainHTTPHosts
    }

    /// A fetcher with `options`' buffer limit and plain-http hosts.
    public init(options: RichPushOptions) {
        self.init(bufferedBytesLimit: options.bufferedBytesLimit, plainHTTPHosts: options.plainHTTPHosts)
    }

    public func fetch(_ url: String, timeout: Duration) async throws(AttachmentFailure) -> MediaResponse {
        guard let target = URL(string: url) else { throw AttachmentFailure(code: .insecureURL, detail: "not a URL") }
        let stream = MediaStream(highWater: bufferedBytesLimit, plainHTTPHosts: plainHTTPHosts)
        let configuration = URLSessionConfiguration.ephemeral
        let seconds = max(1, Double(timeout.components.seconds))
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration, delegate: stream, delegateQueue: nil)
        let task = session.dataTask(with: target)
        stream.start(task, session: session)
        return try await stream.head()
    }
}

/// One download: the URLSession delegate on one side, `MediaBody` on the other.
final class MediaStream: NSObject, URLSessionDataDelegate, MediaBody, @unchecked Sendable {
    private let lock = NSLock()
    private let highWater: Int
    private let plainHTTPHosts: Set<String>
    private var task: URLSessionDataTask?
    private var session: URLSession?
    private var chunks: [[UInt8]] = []
    private var buffered = 0
    private var suspended = false
    private var finished = false
    private var failure: AttachmentFailure?
    private var headWaiter: CheckedContinuation<Result<MediaResponse, AttachmentFailure>, Never>?
    private var headResult: Result<MediaResponse, AttachmentFailure>?
    private var chunkWaiter: CheckedContinuation<Void, Never>?
    /// The most bytes held unread at once, for tests.
    private(set) var peakBuffered = 0

    init(highWater: Int, plainHTTPHosts: Set<String>) {
        self.highWater = highWater
        self.plainHTTPHosts = plainHTTPHosts
    }

    func start(_ task: URLSessionDataTask, session: URLSession) {
        lock.withLock {
            self.task = task
            self.session = session
        }
        task.resume()
    }

    /// Waits for the response head (or the failure before it).
    func head() async throws(AttachmentFailure) -> MediaResponse {
        let result = await withCheckedContinuation { continuation in
            let ready = lock.withLock { () -> Result<MediaResponse, AttachmentFailure>? in
                if let headResult { return headResult }
                headWaiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return try result.get()
    }

    func nextChunk() async throws(AttachmentFailure) -> [UInt8]? {
        while true {
            enum Step {
                case chunk([UInt8], resume: URLSessionDataTask?)
                case end
                case failed(AttachmentFailure)
                case wait
            }
            let step = lock.withLock { () -> Step in
                if !chunks.isEmpty {
                    let chunk = chunks.removeFirst()
                    buffered -= chunk.count
                    var resume: URLSessionDataTask?
                    if suspended, buffered <= highWater / 2 {
                        suspended = false
                        resume = task
                    }
                    return .chunk(chunk, resume: resume)
                }
                if let failure { return .failed(failure) }
                if finished { return .end }
                return .wait
            }
            switch step {
            case .chunk(let chunk, let resume):
                resume?.resume()
                return chunk
            case .end: return nil
            case .failed(let failure): throw failure
            case .wait:
                await withCheckedContinuation { continuation in
                    let ready = lock.withLock { () -> Bool in
                        if !chunks.isEmpty || finished || failure != nil { return true }
                        chunkWaiter = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            }
        }
    }

    func cancel() {
        let (task, session) = lock.withLock { () -> (URLSessionDataTask?, URLSession?) in
            if failure == nil && !finished { failure = AttachmentFailure(code: .timedOut, detail: "cancelled") }
            chunks = []
            buffered = 0
            return (self.task, self.session)
        }
        task?.cancel()
        session?.invalidateAndCancel()
        wakeReader()
    }

    private func wakeReader() {
        let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            defer { chunkWaiter = nil }
            return chunkWaiter
        }
        waiter?.resume()
    }

    private func deliverHead(_ result: Result<MediaResponse, AttachmentFailure>) {
        let waiter = lock.withLock { () -> CheckedContinuation<Result<MediaResponse, AttachmentFailure>, Never>? in
            guard headResult == nil else { return nil }
            headResult = result
            defer { headWaiter = nil }
            return headWaiter
        }
        waiter?.resume(returning: result)
    }

    // MARK: - URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        let length = response.expectedContentLength
        deliverHead(
            .success(
                MediaResponse(
                    status: http?.statusCode ?? 200, contentType: http?.value(forHTTPHeaderField: "Content-Type"),
                    expectedLength: length >= 0 ? Int(length) : nil, body: self)))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let suspend = lock.withLock { () -> Bool in
            guard failure == nil else { return false }
            chunks.append([UInt8](data))
            buffered += data.count
            peakBuffered = max(peakBuffered, buffered)
            guard buffered > highWater, !suspended else { return false }
            suspended = true
            return true
        }
        if suspend { dataTask.suspend() }
        wakeReader()
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        let target = request.url?.absoluteString ?? ""
        let allowed = AttachmentPlan.host(of: target, plainHTTPHosts: plainHTTPHosts) != nil
        completionHandler(allowed ? request : nil)
        if !allowed {
            lock.withLock { failure = AttachmentFailure(code: .insecureURL, detail: "redirected away from https") }
            deliverHead(.failure(AttachmentFailure(code: .insecureURL, detail: "redirected away from https")))
            task.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let failed: AttachmentFailure? = error.map { error in
            let code = (error as NSError).code
            return code == NSURLErrorTimedOut
                ? AttachmentFailure(code: .timedOut, detail: "timed out")
                : AttachmentFailure(code: .network, detail: "URL error \(code)")
        }
        lock.withLock {
            if let failed, failure == nil { failure = failed }
            finished = true
        }
        if let failed { deliverHead(.failure(failed)) }
        session.finishTasksAndInvalidate()
        wakeReader()
    }
}
