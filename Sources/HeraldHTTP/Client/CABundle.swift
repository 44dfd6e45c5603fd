import CCurl
import Foundation

/// The trust anchors handed to curl: the system bundle, followed by the extra file when there is one, as
/// one PEM file, so both are trusted at once (`CURLOPT_CAINFO` takes one file).
///
/// curl gets a path, not `CURLOPT_CAINFO_BLOB`: curl 7.88 copies a blob into every request's connection
/// lookup (a 200 KB allocation and copy, and a 200 KB comparison per candidate connection, per request).
/// The combined file is an anonymous memory file read through `/proc/self/fd/N`, so nothing on disk can
/// expire or be cleaned away under a long-running server; where that is unavailable, a private temp file.
///
/// When a bundle file is found, `CURLOPT_CAPATH` is cleared: curl 7.88 then parses the bundle once and
/// caches the store in the multi handle (`CURLOPT_CA_CACHE_TIMEOUT`), instead of spending ~25 ms of the
/// loop thread per new TLS connection. (Debian's CA directory holds the same certificates as its bundle.)
final class CABundle: Sendable {
    /// `CURLOPT_CAINFO`; `nil` keeps curl's default.
    let caFile: String?
    /// Whether to clear `CURLOPT_CAPATH`.
    let clearsCAPath: Bool
    private let descriptor: Int32
    private let temporaryFile: String?

    /// Finds the system bundle (`systemFile`, or curl's default) and appends `extraFile` to it. A missing
    /// system bundle is tolerated (curl's CA directory still serves); an unreadable or certificate-free
    /// extra file is an error.
    init(systemFile: String?, extraFile: String?) throws(HTTPClientError) {
        let systemPath = Self.systemBundlePaths(preferring: systemFile).first {
            FileManager.default.isReadableFile(atPath: $0)
        }
        clearsCAPath = systemPath != nil
        guard let extraFile else {
            caFile = systemFile == nil ? nil : systemPath
            descriptor = -1
            temporaryFile = nil
            return
        }
        guard let extra = FileManager.default.contents(atPath: extraFile) else {
            throw HTTPClientError(code: .tls, message: "cannot read extra CA file \(extraFile)")
        }
        guard extra.range(of: Data("-----BEGIN CERTIFICATE-----".utf8)) != nil else {
            throw HTTPClientError(code: .tls, message: "extra CA file \(extraFile) holds no PEM certificate")
        }
        var contents = systemPath.flatMap { FileManager.default.contents(atPath: $0) } ?? Data()
        contents.append(Data("\n".utf8))
        contents.append(extra)

        #if os(Linux)
            let memoryFile = herald_memfd_create("herald-ca-bundle")
        #else
            let memoryFile: Int32 = -1
        #endif
        if memoryFile >= 0, Self.writeAll(contents, to: memoryFile),
            FileManager.default.isReadableFile(atPath: "/proc/self/fd/\(memoryFile)")
        {
            descriptor = memoryFile
            caFile = "/proc/self/fd/\(memoryFile)"
            temporaryFile = nil
        } else {
            if memoryFile >= 0 { close(memoryFile) }
            let file = FileManager.default.temporaryDirectory
                .appendingPathComponent("herald-ca-bundle-\(UUID().uuidString).pem").path
            guard FileManager.default.createFile(atPath: file, contents: contents) else {
                throw HTTPClientError(code: .tls, message: "cannot write the combined CA bundle to \(file)")
            }
            descriptor = -1
            caFile = file
            temporaryFile = file
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if let temporaryFile { try? FileManager.default.removeItem(atPath: temporaryFile) }
    }

    /// Where the system bundle may be: the configured path only, if any; else curl's compiled-in default,
    /// then the Debian, Red Hat and Alpine/macOS locations.
    static func systemBundlePaths(preferring configured: String?) -> [String] {
        if let configured { return [configured] }
        var paths: [String] = []
        if let easy = curl_easy_init() {
            var pointer: UnsafeMutableRawPointer?
            if herald_curl_easy_getinfo_ptr(easy, CURLINFO_CAINFO, &pointer) == CURLE_OK, let pointer {
                paths.append(String(cString: pointer.assumingMemoryBound(to: CChar.self)))
            }
            curl_easy_cleanup(easy)
        }
        paths += ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"]
        return paths
    }

    private static func writeAll(_ data: Data, to descriptor: Int32) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }
}
