import Foundation
import HeraldModel

/// A message's call to action as an action button on its system notification: the category to register (one per
/// button title, so messages with the same label share it) and the action inside it. The service extension sets it on
/// a push that carries its message; the app sets it on the notifications it posts itself. Tapping the button comes
/// back as the action `ctaActionIdentifier`, which the SDK turns into `notification.cta_clicked` and the link.
///
/// ```swift
/// if let plan = NotificationActionPlan(payload: payload) {
///     content.categoryIdentifier = plan.categoryIdentifier   // registered first, with one action: plan.actionTitle
/// }
/// ```
public struct NotificationActionPlan: Sendable, Hashable {
    /// The action identifier of the call-to-action button.
    public static let ctaActionIdentifier = "herald.cta"
    /// Every category the SDK registers starts with this.
    public static let categoryPrefix = "herald.cta."
    /// The most categories of the SDK's kept registered; older ones make room (the app's own are never touched).
    public static let maximumCategories = 16
    /// The longest button title, in characters; a longer label is cut with an ellipsis.
    public static let maximumTitleLength = 40

    /// The category: `herald.cta.` and a digest of the title.
    public let categoryIdentifier: String
    /// The button's title: the call to action's label (its URL when the label is blank).
    public let actionTitle: String

    /// The plan for `message`'s call to action; nil without one.
    public init?(message: HeraldMessage) {
        guard let cta = message.cta else { return nil }
        var title = cta.displayLabel.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { return nil }
        if title.count > Self.maximumTitleLength { title = String(title.prefix(Self.maximumTitleLength - 1)) + "…" }
        actionTitle = title
        categoryIdentifier = Self.categoryPrefix + Self.digest(title)
    }

    /// The plan for a push's message (`herald.message.cta`); nil when the push left its message out or it has no
    /// call to action.
    public init?(payload: JSON) {
        guard let message = MessagePush(apnsPayload: payload)?.message else { return nil }
        self.init(message: message)
    }

    /// True for a category identifier the SDK made.
    public static func isHeraldCategory(_ identifier: String) -> Bool { identifier.hasPrefix(categoryPrefix) }

    /// Which registered categories to keep when this plan's is added: all of the app's, and the SDK's up to
    /// `maximumCategories` with this one (the others dropped, sorted, so the choice is the same every time).
    public func categoriesToKeep(registered: Set<String>) -> Set<String> {
        let own = registered.filter(Self.isHeraldCategory).subtracting([categoryIdentifier]).sorted()
        let kept = own.suffix(max(0, Self.maximumCategories - 1))
        return registered.filter { !Self.isHeraldCategory($0) }.union(kept)
    }

    /// FNV-1a (64 bits) of the title's UTF-8, in hex: short, stable across launches and platforms.
    static func digest(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
