import COpenSSL

extension PKey {
    /// Signs SHA-256(`message`) with this private key: DER `ECDSA-Sig-Value` for EC keys, RSASSA-PKCS1-v1_5 for RSA.
    func signSHA256(_ message: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else {
            throw CryptoError(code: .signingFailed, message: "out of memory")
        }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?  // owned by `context`
        guard EVP_DigestSignInit_ex(context, &keyContext, "SHA256", nil, nil, pointer, nil) == 1,
            usePKCS1Padding(keyContext)
        else {
            throw CryptoError.openSSL(.signingFailed, "initialising the signature failed")
        }
        var signature = [UInt8](repeating: 0, count: maximumSignatureSize)
        var length = signature.count
        let status = message.withNonNullBytes { messageBytes in
            EVP_DigestSign(context, &signature, &length, messageBytes.baseAddress, messageBytes.count)
        }
        guard status == 1, length <= signature.count else {
            throw CryptoError.openSSL(.signingFailed, "signing failed")
        }
        signature.removeLast(signature.count - length)
        return signature
    }

    /// Whether `signature` (DER for EC, PKCS#1 v1.5 for RSA) is a valid signature of SHA-256(`message`).
    func isValidSHA256Signature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?
        var valid =
            EVP_DigestVerifyInit_ex(context, &keyContext, "SHA256", nil, nil, pointer, nil) == 1
            && usePKCS1Padding(keyContext)
        if valid {
            valid = signature.withNonNullBytes { signatureBytes in
                message.withNonNullBytes { messageBytes in
                    EVP_DigestVerify(
                        context, signatureBytes.baseAddress, signatureBytes.count, messageBytes.baseAddress,
                        messageBytes.count) == 1
                }
            }
        }
        if !valid { OpenSSLErrorQueue.clear() }
        return valid
    }

    /// Pins PKCS#1 v1.5 padding for RSA keys (OpenSSL's default, made explicit); nothing for other keys.
    private func usePKCS1Padding(_ keyContext: OpaquePointer?) -> Bool {
        guard baseID == EVP_PKEY_RSA else { return true }
        return EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PADDING) == 1
    }
}

extension Array where Element == UInt8 {
    /// Calls `body` with the bytes, pointing at a valid (unused) byte when the array is empty, since some OpenSSL
    /// entry points reject a null pointer even with a zero length.
    fileprivate func withNonNullBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if isEmpty {
            var placeholder: UInt8 = 0
            return withUnsafePointer(to: &placeholder) { body(UnsafeBufferPointer(start: $0, count: 0)) }
        }
        return withUnsafeBufferPointer(body)
    }
}
