import HeraldHTTPServer
import Testing

/// Whose word on the client's address is taken: only a trusted proxy's, read from the right.
@Suite("Trusted proxies")
struct TrustedProxiesTests {
    let proxies = try! TrustedProxies(parsing: "127.0.0.1, 10.0.0.0/8,fd00::/8")

    @Test func rangesAreParsedAndMalformedOnesRefused() throws {
        #expect(proxies.contains("127.0.0.1") && !proxies.contains("127.0.0.2"))
        #expect(proxies.contains("10.200.3.4") && !proxies.contains("11.0.0.1"))
        #expect(proxies.contains("fd12::1") && !proxies.contains("fe80::1"))
        #expect(proxies.contains("::ffff:10.1.2.3"), "an IPv4 address mapped into IPv6 is that address")
        #expect(!TrustedProxies.none.contains("127.0.0.1"))
        #expect(try TrustedProxies(parsing: "0.0.0.0/0").contains("203.0.113.9"))
        for bad in ["10.0.0.0/33", "fd00::/129", "not-an-address", "10.0.0.0/x", "10.0.0.0/8/8", "1.2.3"] {
            #expect(throws: TrustedProxies.Invalid.self, "\(bad)") { try TrustedProxies(parsing: bad) }
        }
    }

    @Test(.bug(id: "issue-40-3", "a client's Forwarded header was believed over the X-Forwarded-For nginx wrote"))
    func theClientIsTheRightMostHopThatIsNoTrustedProxy() {
        func client(_ peer: String, _ headers: [(String, String)]) -> String? {
            proxies.client(peer: peer, headers: headers.map { (name: $0.0, value: $0.1) })
        }
        // From a proxy: the hop it appended, whatever the client wrote to its left.
        #expect(client("127.0.0.1", [("x-forwarded-for", "6.6.6.6, 203.0.113.9")]) == "203.0.113.9")
        #expect(client("127.0.0.1", [("x-forwarded-for", "198.51.100.4, 10.1.1.1")]) == "198.51.100.4")
        #expect(
            client("127.0.0.1", [("x-forwarded-for", "6.6.6.6"), ("x-forwarded-for", "203.0.113.9")]) == "203.0.113.9")
        #expect(client("127.0.0.1", [("x-forwarded-for", "2001:DB8:0::1")]) == "2001:db8::1", "written one way")
        #expect(client("127.0.0.1", [("x-forwarded-for", "203.0.113.9:5123")]) == "203.0.113.9")
        #expect(client("127.0.0.1", []) == "127.0.0.1")
        // Forwarded (RFC 7239), alone or agreeing with X-Forwarded-For.
        let forwarded = ("forwarded", "for=6.6.6.6, for=\"[2001:db8:cafe::17]:4711\";proto=https")
        #expect(client("127.0.0.1", [forwarded]) == "2001:db8:cafe::17")
        #expect(
            client("127.0.0.1", [forwarded, ("x-forwarded-for", "6.6.6.6, 2001:db8:cafe::17")]) == "2001:db8:cafe::17")
        // A hop that is no address ends the walk at the last address read.
        #expect(client("127.0.0.1", [("x-forwarded-for", "203.0.113.9, unknown")]) == "127.0.0.1")
        #expect(client("127.0.0.1", [("forwarded", "for=_hidden, for=10.0.0.7")]) == "10.0.0.7")
        // When they disagree, one of them is the client's own: neither is believed.
        #expect(client("127.0.0.1", [forwarded, ("x-forwarded-for", "198.51.100.4")]) == "127.0.0.1")
        #expect(client("127.0.0.1", [("forwarded", "for=6.6.6.6"), ("x-forwarded-for", "203.0.113.9")]) == "127.0.0.1")
        // From anyone else the headers mean nothing.
        #expect(client("198.51.100.4", [("x-forwarded-for", "203.0.113.9")]) == "198.51.100.4")
        #expect(TrustedProxies.none.client(peer: "127.0.0.1", headers: [("x-forwarded-for", "1.2.3.4")]) == "127.0.0.1")
    }
}
