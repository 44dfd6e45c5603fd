import HeraldDeliveryPorts
import HeraldModel
import HeraldStore

/// The credentials' congestion windows, kept in the database (`credential_windows`) and shared by every node on it:
/// a node starting to send for a credential, or restarting, starts from the window a node last held for it.
package struct StoredCredentialWindows: CredentialWindowStore {
    let store: Store

    /// The windows in `store`.
    package init(store: Store) { self.store = store }

    package func windows(since: Timestamp) throws -> [CredentialWindow] { try store.credentialWindows(since: since) }

    package func save(_ windows: [CredentialWindow]) throws { try store.saveCredentialWindows(windows) }
}
