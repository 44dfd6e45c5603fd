extension PostgresNotifications {
    /// How the listener connects and recovers. Every value has a default.
    package struct Options: Sendable {
        /// The first wait before connecting again after a failure; doubled after each failure in a row. 100 ms.
        package var reconnectDelay: Duration
        /// The longest wait between attempts. 5 s.
        package var maxReconnectDelay: Duration
        /// How long the connection may stay silent before the listener checks it (`SELECT 1`), so that a server
        /// gone without a word is noticed. 30 s.
        package var healthCheckInterval: Duration
        /// How long `listen` waits for its LISTEN to take effect before returning anyway (the listener then hears
        /// a missed-notifications word once it does). 5 s.
        package var listenTimeout: Duration
        /// libpq connection parameters applied over the URL's, as in `PostgresDatabase.Options`.
        package var parameters: [String: String]

        /// Options; every argument defaulted.
        package init(
            reconnectDelay: Duration = .milliseconds(100), maxReconnectDelay: Duration = .seconds(5),
            healthCheckInterval: Duration = .seconds(30), listenTimeout: Duration = .seconds(5),
            parameters: [String: String] = [:]
        ) {
            self.reconnectDelay = reconnectDelay
            self.maxReconnectDelay = maxReconnectDelay
            self.healthCheckInterval = healthCheckInterval
            self.listenTimeout = listenTimeout
            self.parameters = parameters
        }
    }
}
