/// An error thrown by HeraldCrypto.
///
/// The message says what went wrong and, where useful, OpenSSL's reason text; it never contains key bytes,
/// PEM text, passwords or plaintext, so it is safe to log.
///
/// ```swift
/// do {
///     let key = try P256PrivateKey(pemRepresentation: p8Text)
/// } catch let error as CryptoError where error.code == .unsupportedKey {
///     // e.g. an RSA key or a P-384 key was uploaded
/// }
/// ```
package struct CryptoError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is. An open set: more codes may be added.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, e.g. `"invalidKey"`.
        package let rawValue: String

        /// Creates a code from its stable name.
        package init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The key is malformed: not PEM, not a key, corrupt, or of the wrong size.
        package static let invalidKey = Self(rawValue: "invalidKey")
        /// The key is well formed but of a kind this API does not accept (other curve, other algorithm, too short,
        /// encrypted).
        package static let unsupportedKey = Self(rawValue: "unsupportedKey")
        /// OpenSSL failed to produce a signature.
        package static let signingFailed = Self(rawValue: "signingFailed")
        /// Sealed data could not be opened: tampered, truncated, wrong key or wrong associated data.
        package static let decryptionFailed = Self(rawValue: "decryptionFailed")
        /// The system's secure random generator failed.
        package static let randomFailed = Self(rawValue: "randomFailed")
        /// An argument is out of range (sizes, parameters).
        package static let invalidInput = Self(rawValue: "invalidInput")

        /// The code's stable name.
        package var description: String { rawValue }
    }

    /// What kind of failure this is.
    package let code: Code
    /// A human-readable explanation, free of secrets.
    package let message: String

    /// Creates an error. `message` must not contain secrets.
    package init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `CryptoError(<code>): <message>`.
    package var description: String { "CryptoError(\(code)): \(message)" }
}

extension CryptoError {
    /// An error for a failed OpenSSL call: adds OpenSSL's reason for the oldest queued error (static library text,
    /// never data) and clears this thread's error queue.
    static func openSSL(_ code: Code, _ message: String) -> CryptoError {
        if let reason = OpenSSLErrorQueue.takeReason() {
            return CryptoError(code: code, message: "\(message) (\(reason))")
        }
        return CryptoError(code: code, message: message)
    }
}
