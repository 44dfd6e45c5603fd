import HeraldDeliveryPorts
import HeraldModel

/// Each credential's congestion window as a node last held it (`credential_windows`), shared by the nodes.
package struct CredentialWindowRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    /// The windows kept at `since` or later.
    package func all(since: Timestamp) throws -> [CredentialWindow] {
        try tx.connection.rows(
            """
            SELECT business_id, platform, window_limit, found, kept_at FROM credential_windows
            WHERE kept_at >= \(since) ORDER BY business_id, platform
            """
        ).map {
            CredentialWindow(
                businessID: $0.int(0), platform: PushPlatform($0.text(1)), limit: Int($0.int(2)), found: $0.bool(3),
                at: $0.timestamp(4))
        }
    }

    /// Keeps `window`, in place of the one kept for its credential.
    package func save(_ window: CredentialWindow) throws {
        try tx.connection.execute(
            """
            INSERT INTO credential_windows (business_id, platform, window_limit, found, kept_at)
            VALUES (\(window.businessID), \(window.platform.rawValue), \(Int64(window.limit)), \(window.found),
                \(window.at))
            ON CONFLICT (business_id, platform) DO UPDATE SET window_limit = excluded.window_limit,
                found = excluded.found, kept_at = excluded.kept_at
            """)
    }
}

extension Store {
    /// The credentials' windows kept at `since` or later (`DeliveryEngine`'s, shared by the nodes).
    package func credentialWindows(since: Timestamp) throws -> [CredentialWindow] {
        try read { try $0.credentialWindows.all(since: since) }
    }

    /// Keeps `windows`, each in place of the one kept for its credential, in one transaction. Unannounced
    /// (`unannouncedTransaction`): each node reads them every few seconds.
    package func saveCredentialWindows(_ windows: [CredentialWindow]) throws {
        guard !windows.isEmpty else { return }
        try unannouncedTransaction { tx in
            for window in windows { try tx.credentialWindows.save(window) }
        }
    }
}
