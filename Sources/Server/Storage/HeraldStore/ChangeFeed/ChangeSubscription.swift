import Synchronization

/// A `ChangeFeed` subscription: its handler is called until `cancel()` (or until the subscription is released).
package final class ChangeSubscription: Sendable {
    private let onCancel: Mutex<(@Sendable () -> Void)?>

    /// A subscription that runs `onCancel` once, when first cancelled or released.
    package init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Mutex(onCancel)
    }

    /// Stops the handler being called (a call already under way may finish).
    package func cancel() {
        let action = onCancel.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit { cancel() }
}
