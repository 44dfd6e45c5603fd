import COpenSSL

extension PKey {
    /// Which half of a key a PEM text should hold.
    enum PEMKind {
        /// PKCS#8 `PRIVATE KEY`, or a traditional `EC PRIVATE KEY` / `RSA PRIVATE KEY`.
        case privateKey
        /// SubjectPublicKeyInfo `PUBLIC KEY`.
        case publicKey
    }

    /// Parses PEM text. Surrounding whitespace, `\r\n` line ends, indented lines and (in a single-line value such as
    /// an environment variable) literal `\n` escapes are tolerated. Encrypted keys are refused, never prompted for.
    ///
    /// Throws ``CryptoError/Code/invalidKey`` if no key can be read, ``CryptoError/Code/unsupportedKey`` for an
    /// encrypted one. The message never quotes the text.
    static func parse(pem: String, as kind: PEMKind) throws -> PKey {
        guard pem.utf8.count <= 1 << 20 else {
            throw CryptoError(code: .invalidKey, message: "the text is too long to be a PEM key")
        }
        let lines = normalizedLines(pem)
        if kind == .privateKey,
            lines.contains(where: { $0.hasPrefix("-----BEGIN ENCRYPTED") || $0.hasPrefix("Proc-Type:") })
        {
            throw CryptoError(code: .unsupportedKey, message: "encrypted private keys are not supported")
        }
        var bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        defer { OPENSSL_cleanse(&bytes, bytes.count) }
        // BIO_new_mem_buf does not copy: the BIO must not outlive `bytes`, so it lives and dies in this closure.
        let key: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            switch kind {
            case .privateKey: return PEM_read_bio_PrivateKey(bio, nil, refusePassword, nil)
            case .publicKey: return PEM_read_bio_PUBKEY(bio, nil, refusePassword, nil)
            }
        }
        guard let key else {
            OpenSSLErrorQueue.clear()  // reasons such as "no start line" would say nothing more useful
            let expected = kind == .privateKey ? "a PEM private key (PKCS#8 or SEC1/PKCS#1)" : "a PEM public key"
            throw CryptoError(code: .invalidKey, message: "the text is not \(expected)")
        }
        return PKey(taking: key)
    }

    /// The private key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`, the form of Apple's .p8 files).
    var privateKeyPEM: String {
        writePEM { bio in PEM_write_bio_PKCS8PrivateKey(bio, pointer, nil, nil, 0, nil, nil) }
    }

    /// The public key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    var publicKeyPEM: String {
        writePEM { bio in PEM_write_bio_PUBKEY(bio, pointer) }
    }

    private func writePEM(_ write: (OpaquePointer) -> Int32) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { fatalError("BIO_new failed: out of memory") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else {
            fatalError("writing PEM failed: \(OpenSSLErrorQueue.takeReason() ?? "no reason")")
        }
        var bytes = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(bio)))
        defer { OPENSSL_cleanse(&bytes, bytes.count) }
        let read = BIO_read(bio, &bytes, Int32(bytes.count))
        precondition(read == bytes.count, "BIO_read returned less than was pending")
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The text's lines, trimmed, without blank ones.
    private static func normalizedLines(_ pem: String) -> [Substring] {
        var text = pem
        if !text.contains("\n"), text.contains("\\n") {
            text = text.replacing("\\n", with: "\n")
        }
        return text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { $0.trimmingWhitespace() }
            .filter { !$0.isEmpty }
    }
}

/// A password callback that refuses, so OpenSSL never prompts on the terminal for an encrypted key.
private let refusePassword: PasswordCallback = { _, _, _, _ in -1 }

/// OpenSSL's `pem_password_cb`.
private typealias PasswordCallback =
    @convention(c) (
        UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?
    ) -> Int32

extension Substring {
    fileprivate func trimmingWhitespace() -> Substring {
        var result = self
        while let first = result.first, first.isWhitespace { result.removeFirst() }
        while let last = result.last, last.isWhitespace { result.removeLast() }
        return result
    }
}
