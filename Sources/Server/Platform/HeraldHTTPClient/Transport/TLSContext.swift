import COpenSSL
import Foundation

/// The OpenSSL client context every TLS connection of one ``HTTP2Client`` is made from: TLS 1.2 or later,
/// ALPN `h2` (then `http/1.1`), the peer's certificate verified against the system trust store plus an optional
/// extra CA file. Immutable once made, so shared by the client's event loops.
final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer

    /// `systemCAFile`: the system bundle to trust (`nil`: OpenSSL's default locations, else the usual Linux
    /// bundle files). `extraCAFile`: a PEM bundle trusted as well; it must be readable and hold a certificate.
    init(systemCAFile: String?, extraCAFile: String?) throws(HTTPClientError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw HTTPClientError(code: .tls, message: "SSL_CTX_new failed: \(TLSContext.takeErrors())")
        }
        self.context = context
        guard herald_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw HTTPClientError(code: .tls, message: "cannot require TLS 1.2: \(TLSContext.takeErrors())")
        }
        _ = herald_SSL_CTX_set_mode(context, herald_SSL_MODE_PARTIAL_WRITES())
        // Each read takes what the socket holds, up to this much, rather than a record a time in two system calls
        // (header, then body): next door, two reads a push (bench/RESULTS.md, issue 44). What it reads beyond the
        // record asked for waits in OpenSSL, so `ClientSocket.hasPendingBytes` says whether to read again.
        herald_SSL_CTX_set_read_ahead(context)
        SSL_CTX_set_default_read_buffer_len(context, Self.readAheadBytes)
        herald_SSL_CTX_ignore_unexpected_eof(context)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        let protocols: [UInt8] = [2] + Array("h2".utf8) + [8] + Array("http/1.1".utf8)
        guard SSL_CTX_set_alpn_protos(context, protocols, UInt32(protocols.count)) == 0 else {
            throw HTTPClientError(code: .tls, message: "cannot set ALPN: \(TLSContext.takeErrors())")
        }
        try loadSystemTrust(systemCAFile)
        if let extraCAFile { try loadExtraTrust(extraCAFile) }
        ERR_clear_error()
    }

    deinit { SSL_CTX_free(context) }

    /// The most one TLS read takes from the socket: a few of the largest records.
    static let readAheadBytes = 64 * 1024

    private func loadSystemTrust(_ configured: String?) throws(HTTPClientError) {
        if let configured {
            guard SSL_CTX_load_verify_locations(context, configured, nil) == 1 else {
                throw HTTPClientError(
                    code: .tls, message: "cannot load system CA file \(configured): \(TLSContext.takeErrors())")
            }
            return
        }
        // OpenSSL's compiled-in file and hashed directory (Debian: /usr/lib/ssl → /etc/ssl/certs). Where its
        // file is missing (another distribution's layout), the first bundle found in the usual places.
        _ = SSL_CTX_set_default_verify_paths(context)
        let defaultFile = String(cString: X509_get_default_cert_file())
        if !FileManager.default.isReadableFile(atPath: defaultFile),
            let bundle = Self.bundlePaths.first(where: { FileManager.default.isReadableFile(atPath: $0) })
        {
            _ = SSL_CTX_load_verify_locations(context, bundle, nil)
        }
        ERR_clear_error()
    }

    private func loadExtraTrust(_ file: String) throws(HTTPClientError) {
        guard let contents = FileManager.default.contents(atPath: file) else {
            throw HTTPClientError(code: .tls, message: "cannot read extra CA file \(file)")
        }
        guard contents.range(of: Data("-----BEGIN CERTIFICATE-----".utf8)) != nil else {
            throw HTTPClientError(code: .tls, message: "extra CA file \(file) holds no PEM certificate")
        }
        guard SSL_CTX_load_verify_locations(context, file, nil) == 1 else {
            throw HTTPClientError(code: .tls, message: "cannot load extra CA file \(file): \(TLSContext.takeErrors())")
        }
    }

    /// The usual system bundle files: Debian/Ubuntu, Red Hat, Alpine/macOS.
    static let bundlePaths = [
        "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem",
    ]

    /// OpenSSL's queued errors of this thread as text, oldest first; the queue is left empty.
    static func takeErrors() -> String {
        var messages: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        return messages.isEmpty ? "no detail" : messages.joined(separator: "; ")
    }
}
