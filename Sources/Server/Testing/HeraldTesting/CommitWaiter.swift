import Foundation
import HeraldStore

/// Waits for the store to reach a state: the condition is looked at again after every commit (the delivery
/// queue's included), not by polling, until it holds or a timeout passes.
///
/// ```swift
/// let jobs = try CommitWaiter(store).value(timeout: .seconds(5), until: { $0.allSatisfy(\.status.isFinal) }) {
///     try $0.read { try $0.deliveries.all(notificationID: id) }
/// }
/// ```
public final class CommitWaiter: Sendable {
    private let store: Store
    private let flag = Flag()

    /// A waiter on `store`.
    public init(_ store: Store) {
        self.store = store
        store.onCommit { [flag] in flag.set() }
    }

    /// Reads `value` from the store until `done` holds for it or `timeout` passes; returns the last value read.
    public func value<Value>(
        timeout: Duration, until done: (Value) -> Bool, _ read: (Store) throws -> Value
    ) throws -> Value {
        let deadline = Date(timeIntervalSinceNow: timeout / .seconds(1))
        while true {
            flag.reset()
            let value = try read(store)
            if done(value) || Date() >= deadline { return value }
            flag.wait(until: deadline)
        }
    }

    /// Waits until `condition` holds (looked at after each commit), at most `timeout`; returns whether it held.
    @discardableResult
    public func wait(timeout: Duration, until condition: (Store) throws -> Bool) rethrows -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout / .seconds(1))
        while true {
            flag.reset()
            if try condition(store) { return true }
            if Date() >= deadline { return false }
            flag.wait(until: deadline)
        }
    }

    /// A flag threads wait on until another sets it.
    final class Flag: @unchecked Sendable {
        // `isSet` is guarded by `condition`.
        private let condition = NSCondition()
        private var isSet = false

        func set() {
            condition.lock()
            isSet = true
            condition.broadcast()
            condition.unlock()
        }

        func reset() {
            condition.lock()
            isSet = false
            condition.unlock()
        }

        /// Waits until set (returns at once if it is).
        func wait() {
            condition.lock()
            while !isSet { condition.wait() }
            condition.unlock()
        }

        /// Waits until set or `deadline`.
        func wait(until deadline: Date) {
            condition.lock()
            if !isSet { _ = condition.wait(until: deadline) }
            condition.unlock()
        }
    }
}
