import HeraldLifecycle
import HeraldStore

/// The `ChangeFeed` of every node on one PostgreSQL database: a topic is a NOTIFY channel (`herald.<topic>`),
/// published with `pg_notify` inside the write transaction and heard through `PostgresNotifications`. It is a
/// service: its listener runs while `run` does (under the node's `WorkerGroup`, first to start and last to stop).
///
/// ```swift
/// let feed = try PostgresChangeFeed(url: url)
/// let subscription = try feed.subscribe(.deliveryQueue) { _ in engine.wake() }
/// try await WorkerGroup([("changes", feed), ("delivery", engine)], logger: logger).run()
/// ```
package final class PostgresChangeFeed: ChangeFeed, Worker {
    /// The listener (`run` starts and stops it; tests may `start` and `stop` it by hand).
    package let notifications: PostgresNotifications
    private let channelPrefix: String

    /// A feed over `notifications`; channel names are `channelPrefix` and the topic (at most 63 bytes in all).
    package init(notifications: PostgresNotifications, channelPrefix: String = "herald.") {
        self.notifications = notifications
        self.channelPrefix = channelPrefix
    }

    /// A feed with its own listener connection to `url`.
    package convenience init(url: String, options: PostgresNotifications.Options = .init()) throws {
        self.init(notifications: try PostgresNotifications(url: url, options: options))
    }

    /// Runs the listener until asked to stop (`PostgresNotifications.run`).
    package func run() async throws { await notifications.run() }

    package func publish(_ topic: ChangeTopic, payload: String, in transaction: any SQLConnection) throws {
        try PostgresNotifications.notify(channel: channelPrefix + topic.rawValue, payload: payload, on: transaction)
    }

    package func subscribe(_ topic: ChangeTopic, _ handler: @escaping @Sendable (ChangeEvent) -> Void) throws
        -> ChangeSubscription
    {
        try notifications.listen(channelPrefix + topic.rawValue) { notification in
            handler(
                ChangeEvent(
                    topic: topic, payload: notification.payload, mayHaveMissedChanges: notification.mayHaveMissed))
        }
    }
}
