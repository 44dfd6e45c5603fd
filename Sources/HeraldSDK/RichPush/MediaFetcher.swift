/// Downloads a push's media as a stream of chunks, so the file goes to disk piece by piece: tests hand the
/// attacher a fake, extensions the real `URLSessionMediaFetcher`.
public protocol MediaFetcher: Sendable {
    /// Starts fetching `url` and answers once the response's head has arrived. A redirect to anything but https
    /// (or an allowed plain-http host) fails.
    func fetch(_ url: String, timeout: Duration) async throws(AttachmentFailure) -> MediaResponse
}

/// A response's head and its body to read.
public struct MediaResponse: Sendable {
    /// The status code.
    public var status: Int
    /// `Content-Type`, if sent.
    public var contentType: String?
    /// `Content-Length`, if sent.
    public var expectedLength: Int?
    /// The body.
    public var body: any MediaBody

    /// A response.
    public init(status: Int, contentType: String?, expectedLength: Int?, body: any MediaBody) {
        self.status = status
        self.contentType = contentType
        self.expectedLength = expectedLength
        self.body = body
    }
}

/// A response body, read a chunk at a time: the fetcher holds at most a bounded number of bytes until they are
/// read (it pauses the download past that).
public protocol MediaBody: Sendable {
    /// The next chunk, or nil at the end.
    func nextChunk() async throws(AttachmentFailure) -> [UInt8]?
    /// Stops the download.
    func cancel()
}
