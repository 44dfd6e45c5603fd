import COpenSSL

/// Algorithm implementations fetched once from the default provider and shared by every thread.
///
/// Fetched `EVP_MD` / `EVP_CIPHER` objects are immutable and reference counted, so sharing them is safe; fetching
/// them per call (or passing the legacy `EVP_sha256()`) would repeat a locked name lookup on every operation.
enum Algorithms {
    /// SHA-256.
    static var sha256: OpaquePointer { fetchedSHA256 }
    /// AES-256 in Galois/Counter Mode.
    static var aes256GCM: OpaquePointer { fetchedAES256GCM }
}

// Global lets are initialised once, thread-safely, on first use; the pointees are immutable thereafter.
nonisolated(unsafe) private let fetchedSHA256: OpaquePointer = {
    guard let md = EVP_MD_fetch(nil, "SHA256", nil) else {
        fatalError("OpenSSL has no SHA256 implementation in its default provider")
    }
    return md
}()

nonisolated(unsafe) private let fetchedAES256GCM: OpaquePointer = {
    guard let cipher = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) else {
        fatalError("OpenSSL has no AES-256-GCM implementation in its default provider")
    }
    return cipher
}()
