/// What a `ChangeFeed` subscriber hears.
public struct ChangeEvent: Sendable, Equatable {
    /// The topic.
    public let topic: ChangeTopic
    /// What the publisher said changed ("" when it said nothing, and for a missed-changes event).
    public let payload: String
    /// True when changes may have gone unheard (the feed lost its connection, or was not listening yet when the
    /// subscription began): re-check everything the topic covers.
    public let mayHaveMissedChanges: Bool

    /// An event.
    public init(topic: ChangeTopic, payload: String, mayHaveMissedChanges: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.mayHaveMissedChanges = mayHaveMissedChanges
    }
}
