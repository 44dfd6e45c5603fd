import COpenSSL

/// Converts ECDSA signatures between DER (`ECDSA-Sig-Value`, what OpenSSL speaks) and the raw `r ‖ s` form of
/// JOSE (RFC 7518 §3.4), each half a big-endian integer left-padded to the curve's byte size.
enum ECDSASignature {
    /// The raw form of a DER signature, or nil if it is malformed or a half does not fit in `componentByteCount`.
    static func raw(fromDER der: [UInt8], componentByteCount: Int) -> [UInt8]? {
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var reader = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &reader, buffer.count)
        }
        guard let signature else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        defer { ECDSA_SIG_free(signature) }
        var raw = [UInt8](repeating: 0, count: 2 * componentByteCount)
        let written = raw.withUnsafeMutableBufferPointer { buffer in
            let size = Int32(componentByteCount)
            return BN_bn2binpad(ECDSA_SIG_get0_r(signature), buffer.baseAddress, size) == size
                && BN_bn2binpad(ECDSA_SIG_get0_s(signature), buffer.baseAddress! + componentByteCount, size) == size
        }
        guard written else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return raw
    }

    /// The DER form of a raw `r ‖ s` signature, or nil if it is not `2 · componentByteCount` bytes long.
    static func der(fromRaw raw: [UInt8], componentByteCount: Int) -> [UInt8]? {
        guard raw.count == 2 * componentByteCount, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let size = Int32(componentByteCount)
        let assigned = raw.withUnsafeBufferPointer { buffer -> Bool in
            guard let r = BN_bin2bn(buffer.baseAddress, size, nil) else { return false }
            guard let s = BN_bin2bn(buffer.baseAddress! + componentByteCount, size, nil) else {
                BN_free(r)
                return false
            }
            guard ECDSA_SIG_set0(signature, r, s) == 1 else {  // on success the signature owns r and s
                BN_free(r)
                BN_free(s)
                return false
            }
            return true
        }
        let length = assigned ? i2d_ECDSA_SIG(signature, nil) : 0
        guard length > 0 else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var writer = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &writer)
        }
        guard written == length else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return der
    }
}
