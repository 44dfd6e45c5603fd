import HeraldModel

/// Signs device-API requests (the `X-Herald-*` headers): HMAC-SHA256 in Swift over
/// `DeviceRequestSignature.message`, the bytes the server rebuilds.
struct RequestSigner: Sendable {
    /// The credential.
    let credential: Credential

    /// The three headers for a request: key id, timestamp (Unix seconds), lower-case hex signature.
    func headers(method: String, path: String, query: [(name: String, value: String)], body: [UInt8], unixTime: Int64)
        -> [(name: String, value: String)]
    {
        let timestamp = String(unixTime)
        let message = DeviceRequestSignature.message(
            method: method, path: path, query: query, timestamp: timestamp, body: body)
        let signature = HexEncoding.encode(
            HMACSHA256.authenticationCode(for: message, key: Array(credential.secret.utf8)))
        return [
            (DeviceRequestSignature.keyIDHeader, credential.keyID),
            (DeviceRequestSignature.timestampHeader, timestamp),
            (DeviceRequestSignature.signatureHeader, signature),
        ]
    }
}
