import HeraldStore

/// The `ChangeFeed` of every node on one PostgreSQL database: a topic is a NOTIFY channel (`herald.<topic>`),
/// published with `pg_notify` inside the write transaction and heard through `PostgresNotifications`.
///
/// ```swift
/// let feed = try PostgresChangeFeed(url: url)
/// feed.notifications.start()
/// let subscription = try feed.subscribe(.deliveryQueue) { _ in engine.wake() }
/// ```
public final class PostgresChangeFeed: ChangeFeed {
    /// The listener (start and stop it with the node).
    public let notifications: PostgresNotifications
    private let channelPrefix: String

    /// A feed over `notifications`; channel names are `channelPrefix` and the topic (at most 63 bytes in all).
    public init(notifications: PostgresNotifications, channelPrefix: String = "herald.") {
        self.notifications = notifications
        self.channelPrefix = channelPrefix
    }

    /// A feed with its own listener connection to `url`.
    public convenience init(url: String, options: PostgresNotifications.Options = .init()) throws {
        self.init(notifications: try PostgresNotifications(url: url, options: options))
    }

    public func publish(_ topic: ChangeTopic, payload: String, in transaction: any SQLConnection) throws {
        try PostgresNotifications.notify(channel: channelPrefix + topic.rawValue, payload: payload, on: transaction)
    }

    public func subscribe(_ topic: ChangeTopic, _ handler: @escaping @Sendable (ChangeEvent) -> Void) throws
        -> ChangeSubscription
    {
        try notifications.listen(channelPrefix + topic.rawValue) { notification in
            handler(
                ChangeEvent(
                    topic: topic, payload: notification.payload, mayHaveMissedChanges: notification.mayHaveMissed))
        }
    }
}
