import Foundation
import HeraldHTTP

extension HTTPServer {
    /// Waits, up to `timeout`, until the number of requests in flight satisfies `condition`; whether it did.
    @discardableResult
    func waitForRequestsInFlight(timeout: Duration = .seconds(5), _ condition: (Int) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition(requestsInFlight) {
            guard ContinuousClock.now < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }
}
