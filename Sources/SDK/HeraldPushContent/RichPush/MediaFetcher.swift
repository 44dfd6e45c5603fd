/// Downloads a push's media for the attacher, which reads the body a chunk at a time and writes it to its file:
/// tests hand it a fake, extensions the real `URLSessionMediaFetcher`.
public protocol MediaFetcher: Sendable {
    /// Fetches `url`. A fetcher that can tell the body is larger than `maximumBytes` (its `Content-Length`, or the
    /// bytes so far) stops and throws `tooLarge` at once; the attacher checks again as it reads. A redirect to
    /// anything but https (or an allowed plain-http host) fails.
    func fetch(_ url: String, maximumBytes: Int, timeout: Duration) async throws(AttachmentFailure) -> MediaResponse
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

/// A response body, read a chunk at a time, so that no more than a chunk is in memory.
public protocol MediaBody: Sendable {
    /// The next chunk, or nil at the end.
    func nextChunk() async throws(AttachmentFailure) -> [UInt8]?
    /// Stops the download.
    func cancel()
}
