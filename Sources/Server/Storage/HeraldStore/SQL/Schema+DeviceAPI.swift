extension Schema {
    /// Indexes the device API reads through: a device's delivery jobs (deleting a device's data must not walk the
    /// whole queue, and an `app.opened` looks for the campaign pushes delivered to its device), and a business's
    /// test devices (the cap of approved ones is counted at each approval). `deliveries.device_id` never changes
    /// after a job is written, so the queue's claims and answers do not maintain the index.
    static let deviceAPIIndexes = Migration(version: 10, name: "device_api_indexes") { _ in
        [
            "CREATE INDEX deliveries_device ON deliveries (device_id)",
            """
            CREATE INDEX devices_test ON devices (business_id, test_status, last_seen_at)
                WHERE workspace = 'sandbox'
            """,
        ]
    }
}
