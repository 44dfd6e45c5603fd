/// HMAC-SHA256 (RFC 2104) over `SHA256`: what signs every device-API request.
///
/// ```swift
/// HMACSHA256.authenticationCode(for: Array("message".utf8), key: Array(secret.utf8))  // 32 bytes
/// ```
enum HMACSHA256 {
    /// The code for `message` under `key` (any length: keys longer than a block are hashed first).
    static func authenticationCode(for message: some Sequence<UInt8>, key: [UInt8]) -> [UInt8] {
        var block = key.count > SHA256.blockByteCount ? SHA256.hash(key) : key
        block.append(contentsOf: repeatElement(0, count: SHA256.blockByteCount - block.count))
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        let innerDigest = inner.finalize()
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(innerDigest)
        return outer.finalize()
    }
}
