import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real media fetcher: a `URLSession` download task, which writes the body straight to a file as it arrives
/// (on Apple platforms and in FoundationNetworking alike), so memory holds no more than the system's buffers. It
/// stops as soon as `Content-Length` or the bytes written pass the limit, follows redirects only to https (or an
/// allowed plain-http host), and hands the file to the attacher a chunk at a time.
public struct URLSessionMediaFetcher: MediaFetcher {
    private let chunkBytes: Int
    private let plainHTTPHosts: Set<String>
    private let directory: URL

    /// A fetcher reading files back in `chunkBytes` chunks, keeping downloads in `directory` until read.
    public init(
        chunkBytes: Int = 64 * 1024, plainHTTPHosts: Set<String> = [],
        directory: URL = FileManager.default.temporaryDirectory
    ) {
        self.chunkBytes = max(4096, chunkBytes)
        self.plainHTTPHosts = plainHTTPHosts
        self.directory = directory
    }

    /// A fetcher with `options`' chunk size and plain-http hosts.
    public init(options: RichPushOptions, directory: URL = FileManager.default.temporaryDirectory) {
        self.init(chunkBytes: options.chunkBytes, plainHTTPHosts: options.plainHTTPHosts, directory: directory)
    }

    public func fetch(_ url: String, maximumBytes: Int, timeout: Duration) async throws(AttachmentFailure)
        -> MediaResponse
    {
        guard let target = URL(string: url) else { throw AttachmentFailure(code: .insecureURL, detail: "not a URL") }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw AttachmentFailure(code: .storage, detail: error.localizedDescription)
        }
        let file = directory.appendingPathComponent("herald-download-\(UUID().uuidString)")
        let download = MediaDownload(
            limit: maximumBytes, plainHTTPHosts: plainHTTPHosts, file: file, chunkBytes: chunkBytes)
        let configuration = URLSessionConfiguration.ephemeral
        let seconds = max(1, Double(timeout.components.seconds))
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration, delegate: download, delegateQueue: nil)
        return try await download.run(session.downloadTask(with: target), session: session)
    }
}

/// One download: the URLSession delegate, then the downloaded file as a `MediaBody`.
final class MediaDownload: NSObject, URLSessionDownloadDelegate, MediaBody, @unchecked Sendable {
    private let lock = NSLock()
    private let limit: Int
    private let plainHTTPHosts: Set<String>
    private let file: URL
    private let chunkBytes: Int
    private var task: URLSessionDownloadTask?
    private var session: URLSession?
    private var failure: AttachmentFailure?
    private var saved = false
    private var waiter: CheckedContinuation<Result<MediaResponse, AttachmentFailure>, Never>?
    private var result: Result<MediaResponse, AttachmentFailure>?
    private var reader: FileHandle?
    private var finishedReading = false
    /// The most bytes handed out in one chunk, for tests.
    private(set) var largestChunk = 0

    init(limit: Int, plainHTTPHosts: Set<String>, file: URL, chunkBytes: Int) {
        self.limit = limit
        self.plainHTTPHosts = plainHTTPHosts
        self.file = file
        self.chunkBytes = chunkBytes
    }

    /// Runs `task` and waits until the body is on disk (or the download failed).
    func run(_ task: URLSessionDownloadTask, session: URLSession) async throws(AttachmentFailure) -> MediaResponse {
        lock.withLock {
            self.task = task
            self.session = session
        }
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = lock.withLock { () -> Result<MediaResponse, AttachmentFailure>? in
                    if let result { return result }
                    waiter = continuation
                    return nil
                }
                if let ready {
                    continuation.resume(returning: ready)
                } else {
                    task.resume()
                }
            }
        } onCancel: {
            self.stop(AttachmentFailure(code: .timedOut, detail: "cancelled"))
        }
        return try outcome.value()
    }

    private func finish(_ outcome: Result<MediaResponse, AttachmentFailure>) {
        let waiter = lock.withLock { () -> CheckedContinuation<Result<MediaResponse, AttachmentFailure>, Never>? in
            guard result == nil else { return nil }
            result = outcome
            defer { self.waiter = nil }
            return self.waiter
        }
        waiter?.resume(returning: outcome)
    }

    private func stop(_ reason: AttachmentFailure) {
        let (task, session) = lock.withLock { () -> (URLSessionDownloadTask?, URLSession?) in
            if failure == nil { failure = reason }
            return (self.task, self.session)
        }
        task?.cancel()
        session?.invalidateAndCancel()
        finish(.failure(reason))
    }

    // MARK: - MediaBody

    func nextChunk() async throws(AttachmentFailure) -> [UInt8]? {
        let step = lock.withLock { () -> Result<FileHandle?, AttachmentFailure> in
            if let failure { return .failure(failure) }
            if finishedReading { return .success(nil) }
            if reader == nil { reader = try? FileHandle(forReadingFrom: file) }
            guard let reader else { return .failure(AttachmentFailure(code: .storage, detail: "download missing")) }
            return .success(reader)
        }
        guard let handle = try step.value() else { return nil }
        let data: Data?
        do {
            data = try handle.read(upToCount: chunkBytes)
        } catch {
            throw AttachmentFailure(code: .storage, detail: error.localizedDescription)
        }
        guard let data, !data.isEmpty else {
            cleanUp()
            return nil
        }
        lock.withLock { largestChunk = max(largestChunk, data.count) }
        return [UInt8](data)
    }

    func cancel() {
        stop(AttachmentFailure(code: .timedOut, detail: "cancelled"))
        cleanUp()
    }

    private func cleanUp() {
        let handle = lock.withLock { () -> FileHandle? in
            finishedReading = true
            defer { reader = nil }
            return reader
        }
        try? handle?.close()
        try? FileManager.default.removeItem(at: file)
    }

    // MARK: - URLSessionDownloadDelegate

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        if totalBytesWritten > Int64(limit) || totalBytesExpectedToWrite > Int64(limit) {
            let size = max(totalBytesWritten, totalBytesExpectedToWrite)
            stop(AttachmentFailure(code: .tooLarge, detail: "\(size) bytes, at most \(limit)"))
        }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        // The system deletes `location` when this returns: move it now (unless the download was already given up).
        guard lock.withLock({ failure == nil }) else { return }
        do {
            try? FileManager.default.removeItem(at: file)
            try FileManager.default.moveItem(at: location, to: file)
            lock.withLock { saved = true }
        } catch {
            lock.withLock {
                if failure == nil { failure = AttachmentFailure(code: .storage, detail: error.localizedDescription) }
            }
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        let target = request.url?.absoluteString ?? ""
        guard AttachmentPlan.host(of: target, plainHTTPHosts: plainHTTPHosts) != nil else {
            completionHandler(nil)
            stop(AttachmentFailure(code: .insecureURL, detail: "redirected away from https"))
            return
        }
        completionHandler(request)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        session.finishTasksAndInvalidate()
        let (earlier, isSaved) = lock.withLock { (failure, saved) }
        if let earlier {
            try? FileManager.default.removeItem(at: file)
            finish(.failure(earlier))
            return
        }
        if let error {
            let code = (error as NSError).code
            let failure =
                code == NSURLErrorTimedOut
                ? AttachmentFailure(code: .timedOut, detail: "timed out")
                : AttachmentFailure(code: .network, detail: "URL error \(code)")
            lock.withLock { self.failure = failure }
            finish(.failure(failure))
            return
        }
        guard isSaved, let http = task.response as? HTTPURLResponse else {
            finish(.failure(AttachmentFailure(code: .network, detail: "no response")))
            return
        }
        let length = http.expectedContentLength
        finish(
            .success(
                MediaResponse(
                    status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type"),
                    expectedLength: length >= 0 ? Int(length) : nil, body: self)))
    }
}
