import COpenSSL

/// Owns one `EVP_PKEY` and frees it when the last reference goes.
///
/// OpenSSL 3 allows one `EVP_PKEY` to be used by many threads at once as long as nobody modifies it; every operation
/// here creates its own `EVP_MD_CTX` / `EVP_PKEY_CTX`, and nothing mutates the key after creation.
final class PKey: @unchecked Sendable {
    /// The `EVP_PKEY *`.
    let pointer: OpaquePointer

    /// Takes ownership of `pointer`.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// The key's algorithm, e.g. `EVP_PKEY_EC` or `EVP_PKEY_RSA`.
    var baseID: Int32 { EVP_PKEY_get_base_id(pointer) }

    /// The key size in bits (modulus size for RSA, field size for EC).
    var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }

    /// The largest signature the key makes, in bytes.
    var maximumSignatureSize: Int { Int(EVP_PKEY_get_size(pointer)) }

    /// The EC group's name (e.g. `prime256v1`), or nil for keys without a named group.
    var groupName: String? {
        var name = [CChar](repeating: 0, count: 80)
        var length = 0
        guard EVP_PKEY_get_group_name(pointer, &name, name.count, &length) == 1 else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Generates a key with `EVP_PKEY_CTX_new_from_name`; `configure` sets group or size after `keygen_init`.
    static func generate(algorithm: String, configure: (OpaquePointer) -> Int32) -> PKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else {
            fatalError("OpenSSL cannot generate \(algorithm) keys")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, configure(context) == 1, EVP_PKEY_generate(context, &key) == 1,
            let key
        else {
            fatalError("\(algorithm) key generation failed: \(OpenSSLErrorQueue.takeReason() ?? "no reason")")
        }
        return PKey(taking: key)
    }

    /// A key holding only the public half (through a DER SubjectPublicKeyInfo round trip), so a public-key object
    /// never carries private material.
    func publicOnly() -> PKey {
        let length = i2d_PUBKEY(pointer, nil)
        precondition(length > 0, "i2d_PUBKEY failed")
        var der = [UInt8](repeating: 0, count: Int(length))
        let key: OpaquePointer? = der.withUnsafeMutableBufferPointer { buffer in
            var writer: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            guard i2d_PUBKEY(pointer, &writer) == length else { return nil }
            var reader: UnsafePointer<UInt8>? = UnsafePointer(buffer.baseAddress)
            return d2i_PUBKEY(nil, &reader, Int(length))
        }
        guard let key else {
            fatalError("extracting a public key failed: \(OpenSSLErrorQueue.takeReason() ?? "no reason")")
        }
        return PKey(taking: key)
    }
}
