import Foundation
import HeraldHTTPServer
import HeraldTesting

extension HTTPServer {
    /// Waits, up to `timeout`, until the number of requests in flight satisfies `condition`; whether it did.
    @discardableResult
    func waitForRequestsInFlight(timeout: Duration = .seconds(5), _ condition: (Int) -> Bool) -> Bool {
        Poll.until(timeout: timeout) { condition(requestsInFlight) }
    }
}
