import Foundation
import HeraldModel

/// A link about to be opened: a message's call to action, from the card's button, the notification's action button or
/// `Herald.openCta(_:)`. The app's link handler sees it first (after the link policy has refused what is never
/// opened, and the click is recorded) and decides.
///
/// ```swift
/// Herald.setLinkHandler { link in
///     guard link.url.hasPrefix("coffee://") else { return false }  // let the SDK open it
///     await router.open(link.url)
///     return true                                                  // handled: the SDK opens nothing
/// }
/// ```
public struct HeraldLink: Sendable, Equatable {
    /// The link, cleaned by the link policy.
    public let url: String
    /// The message it belongs to.
    public let message: HeraldMessage

    /// A link.
    public init(url: String, message: HeraldMessage) {
        self.url = url
        self.message = message
    }
}

/// The app's link handler: answers true when the app took the link (the SDK then opens nothing), false to let the SDK
/// open it.
public typealias LinkHandler = @Sendable (HeraldLink) async -> Bool

/// The link handler, set from any thread (before the first notification's tap is handled, when set at launch).
final class LinkHandlerSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var handler: LinkHandler?

    var current: LinkHandler? {
        lock.lock()
        defer { lock.unlock() }
        return handler
    }

    func set(_ value: LinkHandler?) {
        lock.lock()
        defer { lock.unlock() }
        handler = value
    }
}
