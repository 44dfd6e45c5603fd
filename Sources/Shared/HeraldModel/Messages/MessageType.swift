/// What a device-API message is (`"type"`): a plain message or a survey. Open: a later Herald may add types,
/// which this version shows as plain messages.
///
/// ```swift
/// MessageType(rawValue: "survey") == .survey  // true
/// ```
public struct MessageType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The name on the wire: `message` or `survey`.
    public let rawValue: String

    /// The type named `rawValue` (known or not).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A notification: headline, body, optional media and call to action.
    public static let message = MessageType(rawValue: "message")
    /// A survey: a message whose questions the SDK asks one per step.
    public static let survey = MessageType(rawValue: "survey")

    /// The name on the wire.
    public var description: String { rawValue }
}
