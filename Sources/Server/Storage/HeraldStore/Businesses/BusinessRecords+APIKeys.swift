import HeraldModel

extension BusinessRecords {
    /// Sets the hashes of a business's device-API keys: `live` (`api_key`) and `sandbox` (`sandbox_api_key`);
    /// nil keeps the one stored. False when there is no such business.
    @discardableResult
    package func setAPIKeys(id: Int64, liveHash: String?, sandboxHash: String?) throws -> Bool {
        try tx.connection.execute(
            """
            UPDATE businesses SET api_key_hash = COALESCE(\(liveHash), api_key_hash),
                sandbox_api_key_hash = COALESCE(\(sandboxHash), sandbox_api_key_hash)
            WHERE id = \(id)
            """) > 0
    }

    /// The business one of whose device-API keys hashes to `hash`, and which of the two it is.
    package func find(apiKeyHash hash: String) throws -> (business: Business, workspace: Install.Workspace)? {
        try tx.connection.row(
            """
            SELECT \(raw: Self.columns), CASE WHEN api_key_hash = \(hash) THEN 'live' ELSE 'sandbox' END
            FROM businesses WHERE api_key_hash = \(hash) OR sandbox_api_key_hash = \(hash)
            """
        ).map { (Self.decode($0), Install.Workspace($0.text(Columns.count(Self.columns)))) }
    }

    /// The business `id`, locked to the transaction where rows can be locked: what is decided from its rows (the
    /// number of its test devices) stays true until the commit.
    package func lock(id: Int64) throws -> Business? {
        try tx.connection.row("SELECT \(raw: Self.columns) FROM businesses WHERE id = \(id) \(tx.forUpdate)").map {
            Self.decode($0)
        }
    }
}
