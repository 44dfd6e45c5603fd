import HeraldHTTPClient
import HeraldModel
import Testing

import HeraldDelivery

@Suite("Retry-After")
struct RetryAfterTests {
    private func response(_ value: String) -> HTTPClientResponse {
        HTTPClientResponse(status: 503, headers: [(name: "retry-after", value: value)], body: [])
    }

    /// 1994-11-06T08:49:37Z, the RFC's example.
    private let now = Timestamp(milliseconds: 784_111_777_000)

    @Test("seconds, as most services send it, capped at an hour")
    func seconds() {
        #expect(response("120").retryAfter(now: now) == .seconds(120))
        #expect(response(" 7 ").retryAfter(now: now) == .seconds(7))
        #expect(response("86400").retryAfter(now: now) == .seconds(3600))
        #expect(response("-5").retryAfter(now: now) == nil)
        #expect(response("soon").retryAfter(now: now) == nil)
    }

    @Test("an HTTP date counts from now; one in the past means at once")
    func dates() {
        #expect(response("Sun, 06 Nov 1994 08:49:37 GMT").retryAfter(now: now) == .zero)
        #expect(response("Sun, 06 Nov 1994 08:51:07 GMT").retryAfter(now: now) == .seconds(90))
        #expect(response("Mon, 07 Nov 1994 08:49:37 GMT").retryAfter(now: now) == .seconds(3600))
        #expect(response("Sat, 05 Nov 1994 08:49:37 GMT").retryAfter(now: now) == .zero)
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(HTTPDate.parse("Tue, 29 Feb 2028 23:59:59 GMT") == 1_835_481_599)
        #expect(HTTPDate.parse(HTTPDate.format(secondsSince1970: 1_835_481_599)) == 1_835_481_599)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 25:49:37 GMT") == nil)
    }
}
