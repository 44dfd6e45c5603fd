import Foundation
import HeraldModel

/// A push's media downloaded and saved, ready for `UNNotificationAttachment(identifier:url:options:)`.
public struct PreparedAttachment: Sendable, Hashable {
    /// The saved file; its name ends with the type's suffix.
    public let fileURL: URL
    /// Image, audio or video.
    public let kind: MessageMediaType
    /// The suffix it was saved with: `ab.att.type`, or for an image the format its bytes are (a PNG sent as `jpg`
    /// is saved as `png`, so iOS reads it).
    public let type: String
    /// Its size in bytes.
    public let byteCount: Int
}
