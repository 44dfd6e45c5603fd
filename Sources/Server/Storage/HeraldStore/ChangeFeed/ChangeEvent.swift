/// What a `ChangeFeed` subscriber hears.
package struct ChangeEvent: Sendable, Equatable {
    /// The topic.
    package let topic: ChangeTopic
    /// What the publisher said changed ("" when it said nothing, and for a missed-changes event).
    package let payload: String
    /// True when changes may have gone unheard (the feed lost its connection, or was not listening yet when the
    /// subscription began): re-check everything the topic covers.
    package let mayHaveMissedChanges: Bool

    /// An event.
    package init(topic: ChangeTopic, payload: String, mayHaveMissedChanges: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.mayHaveMissedChanges = mayHaveMissedChanges
    }
}
