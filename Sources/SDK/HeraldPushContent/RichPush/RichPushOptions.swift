/// Limits for attaching a push's media in a notification service extension, from Apple's documentation: images
/// (JPEG, GIF, PNG) up to 10 MB, audio up to 5 MB, video up to 50 MB; an extension has about 30 seconds and about
/// 24 MB of memory, so downloads stream to disk and stop a few seconds before the system's deadline.
public struct RichPushOptions: Sendable {
    /// Largest image, in bytes.
    public var maximumImageBytes = 10_000_000
    /// Largest audio file, in bytes.
    public var maximumAudioBytes = 5_000_000
    /// Largest video, in bytes.
    public var maximumVideoBytes = 50_000_000
    /// The size of the chunks the downloaded file is read and written in: all of it that is in memory at once
    /// (the download itself goes straight to disk).
    public var chunkBytes = 64 * 1024
    /// How long the whole download may take.
    public var timeout: Duration = .seconds(25)
    /// Hosts whose media may come over plain http. Empty in apps: only for tests against a local server.
    public var plainHTTPHosts: Set<String> = []

    /// The defaults.
    public init() {}

    /// The size limit for a kind of media.
    func maximumBytes(for kind: String) -> Int {
        switch kind {
        case "audio": return maximumAudioBytes
        case "video": return maximumVideoBytes
        default: return maximumImageBytes
        }
    }
}
