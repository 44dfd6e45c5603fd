import Synchronization

/// A `ChangeFeed` for one process: for SQLite and the memory store, where every writer is in this process.
/// Subscribers are called on the thread that committed, after the commit (and after the database is free again).
package final class LocalChangeFeed: ChangeFeed {
    private struct Subscribers {
        var handlers: [ChangeTopic: [UInt64: @Sendable (ChangeEvent) -> Void]] = [:]
        var nextID: UInt64 = 0
    }

    private let subscribers = Mutex(Subscribers())

    /// An empty feed.
    package init() {}

    package func publish(_ topic: ChangeTopic, payload: String, in transaction: any SQLConnection) throws {
        transaction.afterCommit { [weak self] in self?.publish(topic, payload: payload) }
    }

    /// Tells subscribers of `topic` at once (a store without transactions, such as the memory store).
    package func publish(_ topic: ChangeTopic, payload: String) {
        let handlers = subscribers.withLock { Array(($0.handlers[topic] ?? [:]).values) }
        let event = ChangeEvent(topic: topic, payload: payload)
        for handler in handlers { handler(event) }
    }

    package func subscribe(_ topic: ChangeTopic, _ handler: @escaping @Sendable (ChangeEvent) -> Void)
        -> ChangeSubscription
    {
        let id = subscribers.withLock { state in
            state.nextID += 1
            state.handlers[topic, default: [:]][state.nextID] = handler
            return state.nextID
        }
        return ChangeSubscription { [weak self] in
            self?.subscribers.withLock { state in
                state.handlers[topic]?[id] = nil
                if state.handlers[topic]?.isEmpty == true { state.handlers[topic] = nil }
            }
        }
    }
}
