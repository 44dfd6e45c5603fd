import HeraldLifecycle
import HeraldModel
import HeraldObservability
import HeraldStore

/// The service that sends launched campaigns: a batch of each due campaign in turn (so one large campaign does
/// not hold up a small one), as fast as the database takes them, then a look every `interval` (or at once when
/// woken: a launch) for campaigns whose time has come.
package final class CampaignRunner: Worker {
    private let fanOut: CampaignFanOut
    private let clock: WallClock
    private let interval: Duration
    private let logger: Logger
    private let wakeup = Wakeup()

    /// A runner of `fanOut`, looking for due campaigns every `interval`.
    package init(fanOut: CampaignFanOut, clock: WallClock, interval: Duration = .seconds(1), logger: Logger) {
        self.fanOut = fanOut
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    /// A campaign was launched: look now.
    package func wake() { wakeup.signal() }

    /// Sends until asked to stop; a batch in progress is finished first (each is one transaction).
    package func run() async throws {
        GracefulShutdown.onRequest { [wakeup] in wakeup.signal() }
        while !GracefulShutdown.isRequested {
            if try runOnce() == 0 {
                await wakeup.wait(until: clock.now().adding(interval), clock: clock)
            }
        }
    }

    /// One round: a batch of every due campaign. Returns how many devices it handled.
    @discardableResult
    package func runOnce() throws -> Int {
        var handled = 0
        do {
            for id in try fanOut.due() {
                let batch = try fanOut.step(campaign: id)
                handled += batch.targeted
                if batch.finished {
                    logger.info("campaign sent to its whole audience", ["campaign.id": String(id)])
                }
            }
        } catch {
            logger.error("campaign fan-out failed; next round retries", ["error": "\(error)"])
        }
        return handled
    }
}
