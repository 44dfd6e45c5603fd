import HeraldModel
import HeraldObservability
import Synchronization

/// Logs a provider that cannot be reached at `warning`, once per credential per interval (a minute by default),
/// not once per push: an operator sees at once that Apple or Google is out of reach (a firewall, a wrong
/// `--apns-url`, a stand-in not running), and a queue of thousands does not flood the log.
package final class TransportWarnings: Sendable {
    private let logger: Logger
    private let clock: WallClock
    private let interval: Duration
    private let lastLogged = Mutex<[String: Timestamp]>([:])

    /// Warnings to `logger`, at most one per key every `interval`.
    package init(logger: Logger, clock: WallClock, interval: Duration = .seconds(60)) {
        self.logger = logger
        self.clock = clock
        self.interval = interval
    }

    /// Reports that a send with `businessID`'s credential for `provider` to `url` failed in transport with
    /// `reason`; logs it unless that credential's failure was logged less than `interval` ago.
    package func failed(provider: String, businessID: Int64, url: String, reason: String) {
        let key = "\(provider)/\(businessID)"
        let now = clock.now()
        let due = lastLogged.withLock { logged -> Bool in
            if let last = logged[key], now.since(last) < interval { return false }
            logged[key] = now
            return true
        }
        guard due else { return }
        logger.warning(
            "cannot reach \(provider); its pushes stay queued and are retried",
            [
                "business.id": String(businessID), "url": url, "error": reason,
                "hint": "check the network, --\(provider.lowercased())-url and --ca-file",
            ])
    }
}
