import HeraldModel

/// The install's own credential, from registration: every later request is signed with it.
struct Credential: Sendable, Hashable {
    /// Sent as `X-Herald-Key-Id`.
    var keyID: String
    /// The HMAC key (its UTF-8 bytes). Never logged.
    var secret: String

    /// `{"key_id","secret"}`.
    var json: JSON { .object([("key_id", .string(keyID)), ("secret", .string(secret))]) }

    /// Reads `{"key_id","secret"}` of non-empty strings.
    init?(json: JSON?) {
        guard let keyID = json?["key_id"]?.stringValue, !keyID.isEmpty, let secret = json?["secret"]?.stringValue,
            !secret.isEmpty
        else { return nil }
        self.init(keyID: keyID, secret: secret)
    }

    init(keyID: String, secret: String) {
        self.keyID = keyID
        self.secret = secret
    }
}
