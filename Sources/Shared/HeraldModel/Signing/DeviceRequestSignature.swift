/// What a signed device-API request's signature covers, built the same way by the SDK that signs and the server
/// that checks:
///
/// ```
/// METHOD \n path \n canonical query \n timestamp \n raw body
/// ```
///
/// - `METHOD`: the request method as sent (`GET`, `POST`, …);
/// - `path`: the request path exactly as sent on the request line, without the query (still percent-encoded);
/// - canonical query: the query's parameters decoded, then each name and value percent-encoded as RFC 3986 says
///   (everything but `A-Z a-z 0-9 - . _ ~`, upper-case hex), sorted by encoded name (then encoded value)
///   byte-wise, written `name=value` and joined with `&`; empty when there is none;
/// - timestamp: the `X-Herald-Timestamp` header's text, Unix seconds;
/// - the body's bytes exactly as sent (none for a GET).
///
/// The signature is lower-case hex HMAC-SHA256 of those bytes, keyed with the install's secret (the UTF-8 bytes
/// of `credential.secret`); each side computes the HMAC itself.
///
/// ```swift
/// let bytes = DeviceRequestSignature.message(
///     method: "GET", path: "/api/v1/geofences", query: [("latitude", "40.7"), ("longitude", "-74.0")],
///     timestamp: "1714555800", body: [])
/// // GET\n/api/v1/geofences\nlatitude=40.7&longitude=-74.0\n1714555800\n
/// ```
public enum DeviceRequestSignature {
    /// The header naming the install's key id.
    public static let keyIDHeader = "X-Herald-Key-Id"
    /// The header with the Unix time the request was signed at.
    public static let timestampHeader = "X-Herald-Timestamp"
    /// The header with the signature.
    public static let signatureHeader = "X-Herald-Signature"
    /// How far a timestamp may be from the server's clock, in seconds, either way.
    public static let allowedSkewSeconds: Int64 = 300

    /// The bytes to sign for a request whose query parameters are given decoded.
    public static func message(
        method: String, path: String, query: [(name: String, value: String)], timestamp: String, body: [UInt8]
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(method.utf8.count + path.utf8.count + timestamp.utf8.count + body.count + 64)
        bytes.append(contentsOf: method.utf8)
        bytes.append(0x0A)
        bytes.append(contentsOf: path.utf8)
        bytes.append(0x0A)
        bytes.append(contentsOf: canonicalQuery(query).utf8)
        bytes.append(0x0A)
        bytes.append(contentsOf: timestamp.utf8)
        bytes.append(0x0A)
        bytes.append(contentsOf: body)
        return bytes
    }

    /// The bytes to sign for a request target as received (`/api/v1/geofences?latitude=40.7&longitude=-74.0`):
    /// the server's side. The query is decoded as forms are (`+` is a space), then made canonical.
    public static func message(method: String, target: String, timestamp: String, body: [UInt8]) -> [UInt8] {
        let (path, rawQuery) = split(target)
        return message(method: method, path: path, query: QueryString.parse(rawQuery), timestamp: timestamp, body: body)
    }

    /// The canonical query of decoded parameters: each part percent-encoded (RFC 3986), sorted by encoded name,
    /// then encoded value, byte-wise; joined with `&`. Empty for none.
    public static func canonicalQuery(_ parameters: [(name: String, value: String)]) -> String {
        let encoded = parameters.map {
            (name: QueryString.percentEncoded($0.name), value: QueryString.percentEncoded($0.value))
        }
        let sorted = encoded.sorted { lhs, rhs in
            lhs.name == rhs.name
                ? lhs.value.utf8.lexicographicallyPrecedes(rhs.value.utf8)
                : lhs.name.utf8.lexicographicallyPrecedes(rhs.name.utf8)
        }
        return sorted.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    }

    /// The query string to send for `parameters`: each percent-encoded as in the canonical query, in the given
    /// order.
    public static func queryString(_ parameters: [(name: String, value: String)]) -> String {
        parameters.map { "\(QueryString.percentEncoded($0.name))=\(QueryString.percentEncoded($0.value))" }.joined(
            separator: "&")
    }

    /// The Unix seconds of a timestamp header: ASCII digits only (at most 12), else nil.
    public static func seconds(fromTimestampHeader text: String) -> Int64? {
        guard (1...12).contains(text.utf8.count),
            text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int64(text)
    }

    /// Whether a timestamp header is within `allowedSkewSeconds` of `now`.
    public static func isFresh(timestampHeader text: String, now: Timestamp) -> Bool {
        guard let seconds = seconds(fromTimestampHeader: text) else { return false }
        return abs(seconds - now.seconds) <= allowedSkewSeconds
    }

    // MARK: - Reading a target

    /// The path and the raw query (without `?`) of a request target.
    static func split(_ target: String) -> (path: String, query: String) {
        guard let mark = target.firstIndex(of: "?") else { return (target, "") }
        return (String(target[..<mark]), String(target[target.index(after: mark)...]))
    }
}
