import HeraldDelivery
import HeraldModel
import HeraldObservability
import HeraldTesting
import Synchronization
import Testing

/// A provider out of reach is a warning once per credential per minute, not one line per push.
@Suite("Transport warnings")
struct TransportWarningsTests {
    @Test func oncePerCredentialPerMinute() {
        let lines = Mutex<[String]>([])
        let clock = ManualClock()
        let logger = Logger(
            label: "herald.apns", level: .info, sink: LogSink { line in lines.withLock { $0.append(line) } })
        let warnings = TransportWarnings(logger: logger, clock: clock.wallClock)
        for _ in 1...500 {
            warnings.failed(provider: "APNs", businessID: 1, url: "https://127.0.0.1:1", reason: "connectionFailed")
        }
        warnings.failed(provider: "APNs", businessID: 2, url: "https://127.0.0.1:1", reason: "connectionFailed")
        #expect(lines.withLock { $0.count } == 2)
        clock.advance(by: .seconds(59))
        warnings.failed(provider: "APNs", businessID: 1, url: "https://127.0.0.1:1", reason: "connectionFailed")
        #expect(lines.withLock { $0.count } == 2)
        clock.advance(by: .seconds(1))
        warnings.failed(provider: "APNs", businessID: 1, url: "https://127.0.0.1:1", reason: "tlsFailed")
        let written = lines.withLock { $0 }
        #expect(written.count == 3)
        #expect(written.allSatisfy { $0.contains(" warning herald.apns: cannot reach APNs") })
        #expect(written[2].contains("error=tlsFailed") && written[2].contains("business.id=1"))
    }
}
