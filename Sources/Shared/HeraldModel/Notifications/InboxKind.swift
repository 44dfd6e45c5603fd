/// The kind of an inbox entry, as the app's inbox groups them.
public struct InboxKind: Sendable, Hashable, CustomStringConvertible {
    /// `system`, `campaign` or `news`.
    public let rawValue: String
    /// The kind named `rawValue`.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Transactional messages: check-ins, redemptions, gift cards, sign-up.
    public static let system = InboxKind("system")
    /// Offers and surveys sent by campaigns.
    public static let campaign = InboxKind("campaign")
    /// News items an operator sends.
    public static let news = InboxKind("news")

    public var description: String { rawValue }
}

/// How an inbox entry reaches the phone besides the inbox.
public struct PushStyle: Sendable, Hashable, CustomStringConvertible {
    /// `alert`, `background` or `none`.
    public let rawValue: String
    /// The style named `rawValue`.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// A visible alert with sound and badge.
    public static let alert = PushStyle("alert")
    /// A silent `content-available` push the app handles in the background (gift card balance).
    public static let background = PushStyle("background")
    /// Inbox only, no push.
    public static let none = PushStyle("none")

    public var description: String { rawValue }
}

/// A rich-media attachment: what a notification service extension downloads (Braze's `ab.att`).
public struct MediaAttachment: Sendable, Hashable {
    /// Where the file is (https, or Herald's own media URL).
    public var url: String
    /// The file type, used as the saved file's extension: `jpg`, `png`, `gif`, `mp3`, `m4a`, `wav`, `aiff`, `mp4`, `mpeg`, `avi`.
    public var type: String

    /// An attachment.
    public init(url: String, type: String) {
        self.url = url
        self.type = type
    }

    /// `{"url":…,"type":…}`: how every API and payload writes it.
    public var json: JSON { .object([("url", .string(url)), ("type", .string(type))]) }
}
