extension Schema {
    /// FCM's send quota per Firebase project, shared by every node on the database: `next_free` is the end of the time
    /// the nodes have leased of it so far (each lease is the next second or so, which that node alone spends at the
    /// quota's pace), `quota_per_minute` the operator's override of `--fcm-quota-per-minute` for that project (NULL:
    /// the default). Keyed by the project, not the business: two businesses sending as one project share its quota.
    static let fcmQuotas = Migration(version: 18, name: "fcm_quotas") { _ in
        [
            """
            CREATE TABLE fcm_quotas (
                project_id TEXT PRIMARY KEY, quota_per_minute BIGINT, next_free BIGINT NOT NULL DEFAULT 0)
            """
        ]
    }
}
