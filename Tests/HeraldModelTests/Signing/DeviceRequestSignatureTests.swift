import HeraldModel
import Testing

/// The canonical string both sides sign: its exact bytes, the query's order and encoding, and the server's
/// reading of a raw target agreeing with the SDK's parameters.
@Suite struct DeviceRequestSignatureTests {
    @Test func canonicalStringIsExact() {
        let bytes = DeviceRequestSignature.message(
            method: "POST", path: "/api/v1/events", query: [], timestamp: "1714555800", body: Array("{\"a\":1}".utf8))
        #expect(String(decoding: bytes, as: UTF8.self) == "POST\n/api/v1/events\n\n1714555800\n{\"a\":1}")
        let get = DeviceRequestSignature.message(
            method: "GET", path: "/api/v1/geofences", query: [("longitude", "-74.0"), ("latitude", "40.7")],
            timestamp: "1714555800", body: [])
        #expect(
            String(decoding: get, as: UTF8.self)
                == "GET\n/api/v1/geofences\nlatitude=40.7&longitude=-74.0\n1714555800\n")
    }

    @Test func bodyBytesAreKeptAsTheyAre() {
        let body: [UInt8] = [0x00, 0xFF, 0x0A, 0x0D]
        let bytes = DeviceRequestSignature.message(method: "PUT", path: "/p", query: [], timestamp: "1", body: body)
        #expect(Array(bytes.suffix(4)) == body)
    }

    @Test func queryIsSortedAndPercentEncoded() {
        let query = DeviceRequestSignature.canonicalQuery([
            ("b", "2"), ("a", "z"), ("a", "y"), ("é", "ü ñ"), ("A", "x+y/z?&="), ("tilde~-._", "*'()!"),
        ])
        // Sorted by the encoded names (as AWS SigV4 does): `%C3%A9` sorts before `A`.
        #expect(query == "%C3%A9=%C3%BC%20%C3%B1&A=x%2By%2Fz%3F%26%3D&a=y&a=z&b=2&tilde~-._=%2A%27%28%29%21")
        #expect(DeviceRequestSignature.canonicalQuery([]) == "")
        #expect(DeviceRequestSignature.canonicalQuery([("flag", "")]) == "flag=")
    }

    @Test func theServersReadingOfATargetMatchesTheSDKsParameters() {
        let parameters: [(name: String, value: String)] = [
            ("longitude", "-74.006"), ("latitude", "40.7128"), ("q", "a b+c&d=é"),
        ]
        let target = "/api/v1/geofences?" + DeviceRequestSignature.queryString(parameters)
        #expect(target == "/api/v1/geofences?longitude=-74.006&latitude=40.7128&q=a%20b%2Bc%26d%3D%C3%A9")
        let server = DeviceRequestSignature.message(method: "GET", target: target, timestamp: "9", body: [])
        let client = DeviceRequestSignature.message(
            method: "GET", path: "/api/v1/geofences", query: parameters, timestamp: "9", body: [])
        #expect(server == client)
        // A form-style `+` and lower-case escapes read the same.
        let form = DeviceRequestSignature.message(
            method: "GET", target: "/x?q=a+b&r=%c3%a9&&s", timestamp: "9", body: [])
        #expect(String(decoding: form, as: UTF8.self) == "GET\n/x\nq=a%20b&r=%C3%A9&s=\n9\n")
        #expect(
            String(
                decoding: DeviceRequestSignature.message(
                    method: "GET", target: "/x?bad=%zz%4", timestamp: "1", body: []),
                as: UTF8.self) == "GET\n/x\nbad=%25zz%254\n1\n")
        #expect(
            String(
                decoding: DeviceRequestSignature.message(method: "GET", target: "/x?", timestamp: "1", body: []),
                as: UTF8.self) == "GET\n/x\n\n1\n")
    }

    @Test func timestampsAreFreshWithinFiveMinutes() {
        let now = Timestamp(milliseconds: 1_714_555_800_000)
        #expect(DeviceRequestSignature.isFresh(timestampHeader: "1714555800", now: now))
        #expect(DeviceRequestSignature.isFresh(timestampHeader: "1714556100", now: now))
        #expect(DeviceRequestSignature.isFresh(timestampHeader: "1714555500", now: now))
        #expect(!DeviceRequestSignature.isFresh(timestampHeader: "1714556101", now: now))
        #expect(!DeviceRequestSignature.isFresh(timestampHeader: "1714555499", now: now))
        for bad in ["", "-1", "1e9", " 1714555800", "1714555800.0", "17145558000000"] {
            #expect(!DeviceRequestSignature.isFresh(timestampHeader: bad, now: now), "\(bad)")
        }
    }
}
