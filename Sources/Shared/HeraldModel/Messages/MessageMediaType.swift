/// The kind of a message's media (`"media":{"type"}`). Open: a later Herald may add kinds, which this version
/// shows as a link.
///
/// Image, video and audio can also travel as a push attachment (Braze's `ab.att`), saved with a file suffix
/// from `attachmentTypes`.
public struct MessageMediaType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The name on the wire: `image`, `video`, `audio`, `youtube`, `application`, `text` or `file`.
    public let rawValue: String

    /// The kind named `rawValue` (known or not).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A picture: JPEG, PNG or GIF.
    public static let image = MessageMediaType(rawValue: "image")
    /// A video file, played inside the card.
    public static let video = MessageMediaType(rawValue: "video")
    /// An audio file, with its own player.
    public static let audio = MessageMediaType(rawValue: "audio")
    /// A YouTube video, embedded (youtube-nocookie) inside the card.
    public static let youtube = MessageMediaType(rawValue: "youtube")
    /// An application file (a PDF, …), opened outside the card.
    public static let application = MessageMediaType(rawValue: "application")
    /// A text file.
    public static let text = MessageMediaType(rawValue: "text")
    /// Any other file.
    public static let file = MessageMediaType(rawValue: "file")

    /// Every kind this version knows, in the order the device API lists them.
    public static let allKnown: [MessageMediaType] = [.image, .video, .audio, .youtube, .application, .text, .file]

    /// True for the seven kinds above.
    public var isKnown: Bool { Self.allKnown.contains(self) }

    /// The file suffixes a push attachment of this kind may be saved with, preferred first (what Apple's
    /// notification attachments accept: JPEG, GIF, PNG; MP3, MPEG-4 audio, WAV, AIFF; MPEG, MPEG-4, AVI); empty
    /// for kinds that are never attached.
    public var attachmentTypes: [String] {
        switch self {
        case .image: return ["jpg", "jpeg", "png", "gif"]
        case .audio: return ["mp3", "m4a", "wav", "aiff", "aif"]
        case .video: return ["mp4", "m4v", "mpeg", "mpg", "avi"]
        default: return []
        }
    }

    /// True for image, video and audio: the kinds a push carries as an attachment.
    public var isAttachable: Bool { !attachmentTypes.isEmpty }

    /// The attachable kind whose files are saved with suffix `type` (case-insensitive), if any.
    public init?(attachmentType type: String) {
        let lowered = type.lowercased()
        guard
            let kind = [MessageMediaType.image, .audio, .video].first(where: { $0.attachmentTypes.contains(lowered) })
        else { return nil }
        self = kind
    }

    /// The name on the wire.
    public var description: String { rawValue }
}
