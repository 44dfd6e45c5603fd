import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real transport: `URLSession` (FoundationNetworking on Linux). No cookies, no cache: every device-API call
/// is signed and goes to the server.
public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    private let session: URLSession

    /// A transport over an ephemeral session of its own.
    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpShouldSetCookies = false
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    /// A transport over `session`.
    public init(session: URLSession) { self.session = session }

    deinit { session.finishTasksAndInvalidate() }

    public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http"
        else { throw TransportError(code: .invalidURL, detail: "not an http(s) URL") }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = Double(request.timeout.components.seconds) + 0.001
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
        let box = TaskBox()
        let result: Result<TransportResponse, TransportError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        continuation.resume(returning: .failure(Self.transportError(error)))
                        return
                    }
                    guard let http = response as? HTTPURLResponse else {
                        continuation.resume(
                            returning: .failure(TransportError(code: .offline, detail: "no HTTP response")))
                        return
                    }
                    var headers: [(name: String, value: String)] = []
                    for (name, value) in http.allHeaderFields {
                        headers.append(("\(name)", "\(value)"))
                    }
                    continuation.resume(
                        returning: .success(
                            TransportResponse(status: http.statusCode, headers: headers, body: [UInt8](data ?? Data())))
                    )
                }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
        return try result.value()
    }

    /// The transport error for a URL loading error.
    static func transportError(_ error: any Error) -> TransportError {
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else {
            return TransportError(code: .offline, detail: "\(nsError.domain)")
        }
        switch nsError.code {
        case NSURLErrorTimedOut: return TransportError(code: .timedOut, detail: "timed out")
        case NSURLErrorCancelled: return TransportError(code: .cancelled, detail: "cancelled")
        case NSURLErrorBadURL, NSURLErrorUnsupportedURL: return TransportError(code: .invalidURL, detail: "bad URL")
        default: return TransportError(code: .offline, detail: "URL error \(nsError.code)")
        }
    }
}

/// Holds a task so cancellation can reach it from another thread.
final class TaskBox: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var cancelled = false

    func set(_ task: URLSessionTask) {
        let cancelNow = lock.withLock { () -> Bool in
            self.task = task
            return cancelled
        }
        if cancelNow { task.cancel() }
    }

    func cancel() {
        let task = lock.withLock { () -> URLSessionTask? in
            cancelled = true
            return self.task
        }
        task?.cancel()
    }
}
