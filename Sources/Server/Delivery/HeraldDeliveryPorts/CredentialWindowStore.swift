import HeraldModel
import Synchronization

/// Where the credentials' congestion windows are kept between runs and shared by the nodes (the database's
/// `credential_windows` in a server; `MemoryWindowStore` for one process): a node starting to send for a credential
/// starts from the window a node last held for it there, not from slow start.
package protocol CredentialWindowStore: Sendable {
    /// The windows kept at `since` or later.
    func windows(since: Timestamp) throws -> [CredentialWindow]
    /// Keeps `windows`, each in place of the one kept for its credential.
    func save(_ windows: [CredentialWindow]) throws
}

/// Windows kept by this process alone.
package final class MemoryWindowStore: CredentialWindowStore {
    private let kept = Mutex<[CredentialKey: CredentialWindow]>([:])

    /// An empty store.
    package init() {}

    package func windows(since: Timestamp) throws -> [CredentialWindow] {
        kept.withLock { $0.values.filter { $0.at >= since } }
    }

    package func save(_ windows: [CredentialWindow]) throws {
        kept.withLock { kept in
            for window in windows { kept[window.key] = window }
        }
    }
}
