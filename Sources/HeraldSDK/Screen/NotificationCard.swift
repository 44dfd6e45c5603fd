import HeraldModel

/// What the notification screen's card shows, worked out from a message: headline, body, media, the call to action
/// and the sandbox ribbon. The Apple shell draws it; apps that draw their own card can use it too.
///
/// ```swift
/// let card = NotificationCard(message)
/// card.ctaLabel          // the label, or the URL when the label is missing
/// card.showsSandboxRibbon
/// ```
public struct NotificationCard: Sendable, Equatable {
    /// The message's id.
    public let messageID: String
    /// The headline.
    public let headline: String
    /// The body.
    public let body: String
    /// The media, if any.
    public let media: Media?
    /// The call to action's button text: its label, or its URL when the label is missing or blank; nil without a
    /// call to action.
    public let ctaLabel: String?
    /// Where the call to action leads.
    public let ctaURL: String?
    /// A sandbox message: show the SANDBOX ribbon.
    public let showsSandboxRibbon: Bool
    /// The card always has a close button (inside its top-right corner, over any media).
    public let showsCloseButton = true

    /// The card for `message`.
    public init(_ message: HeraldMessage) {
        messageID = message.id
        headline = message.headline
        body = message.body
        media = message.media.map(Media.init)
        ctaLabel = message.cta?.displayLabel
        ctaURL = message.cta?.url
        showsSandboxRibbon = message.isSandbox
    }

    /// The card's media.
    public struct Media: Sendable, Equatable {
        /// Image, video, audio, YouTube, or a file kind.
        public let kind: MessageMediaType
        /// The media's URL.
        public let url: String
        /// A picture to show before it plays.
        public let thumbnailURL: String?
        /// For YouTube: the youtube-nocookie embed URL to load inside the card; nil when the URL names no video.
        public let embedURL: String?
        /// Plays inside the card with a Play button (video, audio, YouTube); nothing plays until it is tapped.
        public let isPlayable: Bool
        /// Opens outside the app (application, text, file, and kinds this version doesn't know).
        public let opensExternally: Bool

        init(_ media: MessageMedia) {
            kind = media.type
            url = media.url
            thumbnailURL = media.thumbnailURL
            embedURL = media.type == .youtube ? YouTubeEmbed.embedURL(for: media.url) : nil
            isPlayable = [.video, .audio, .youtube].contains(media.type)
            opensExternally = !([.image, .video, .audio, .youtube] as [MessageMediaType]).contains(media.type)
        }
    }
}
