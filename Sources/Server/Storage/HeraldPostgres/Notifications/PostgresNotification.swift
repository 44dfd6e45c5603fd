/// What a `PostgresNotifications` listener hears: one notification, or word that some may have been missed.
package struct PostgresNotification: Sendable, Equatable {
    /// The channel.
    package let channel: String
    /// The payload the notifier sent ("" for none, and for a missed-notifications word).
    package let payload: String
    /// True when notifications on the channel may have gone unheard (the connection was lost and made again, or
    /// was not up yet when the listener began): re-check what the channel covers.
    package let mayHaveMissed: Bool

    /// A notification.
    package init(channel: String, payload: String, mayHaveMissed: Bool = false) {
        self.channel = channel
        self.payload = payload
        self.mayHaveMissed = mayHaveMissed
    }
}
