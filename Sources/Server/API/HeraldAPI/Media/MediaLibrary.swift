import HeraldModel
import Foundation
import HeraldCrypto
import HeraldHTTPServer
import Synchronization

/// Media files kept on disk under the SHA-256 of their bytes: `<directory>/<sha256 hex>.<ext>`, mode 0644.
/// The same bytes stored twice are one file; a file never changes once written, so what is known about it
/// (size, dates) is cached and every download is a lookup and a `sendfile`.
///
/// ```swift
/// let library = try MediaLibrary(directory: dataDirectory.file("media"))
/// let (file, _) = try library.store(bytes, as: .png)
/// library.file(named: file.name)?.path          // …/media/9f86d0….png
/// ```
final class MediaLibrary: Sendable {
    /// A stored file.
    struct StoredFile: Sendable, Equatable {
        /// `<sha256 hex>.<ext>`: its name on disk and in its URL.
        let name: String
        /// The SHA-256 of its bytes, lowercase hex.
        let sha256: String
        /// What it is.
        let type: MediaType
        /// Its length in bytes.
        let size: Int64
        /// Its path on disk.
        let path: String
        /// When it was written, as an HTTP date (`Last-Modified`).
        let lastModified: String
        /// Its strong entity tag: the content hash, quoted.
        let etag: String

        init(name: String, sha256: String, type: MediaType, size: Int64, path: String, lastModified: String) {
            self.name = name
            self.sha256 = sha256
            self.type = type
            self.size = size
            self.path = path
            self.lastModified = lastModified
            self.etag = "\"" + sha256 + "\""
        }
    }

    /// Why the library could not read or write a file (paths and errno only, never content).
    struct Failure: Error, CustomStringConvertible {
        /// What failed.
        let description: String
    }

    /// The directory the files live in.
    let directory: String
    private let cache = Mutex<[String: StoredFile]>([:])
    /// Files remembered at most; beyond it the cache starts over (entries are cheap to rebuild: one `stat`).
    private let cacheLimit = 10_000
    private static let temporaryPrefix = ".upload-"

    /// Opens (creating, 0755) `directory` and removes uploads a crash left half-written.
    init(directory: String) throws {
        self.directory = directory
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        } catch {
            throw Failure(description: "cannot create media directory \(directory): \(error.localizedDescription)")
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        where name.hasPrefix(Self.temporaryPrefix) {
            _ = unlink(path(of: name))
        }
    }

    /// Stores `bytes` as a file of `type` and returns it; `created` is false when the same bytes were already
    /// there (the file is left as it is). The bytes go to a temporary file in the same directory, are synced, then
    /// renamed into place, so a reader never sees a partial file under a final name.
    func store(_ bytes: [UInt8], as type: MediaType) throws -> (file: StoredFile, created: Bool) {
        let sha256 = Hex.encode(SHA256.hash(bytes))
        let name = sha256 + "." + type.name
        if let existing = file(named: name), existing.size == Int64(bytes.count) { return (existing, false) }

        let final = path(of: name)
        let temporary = path(of: Self.temporaryPrefix + sha256 + "-" + Hex.encode(SecureRandom.bytes(count: 8)))
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("cannot create \(temporary)") }
        var written = 0
        let ok = bytes.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                written += count
            }
            return true
        }
        let error = ok ? nil : failure("cannot write \(temporary)")
        // The mode does not depend on the process umask; the data is on disk before the name points at it.
        let synced = error == nil && fchmod(descriptor, 0o644) == 0 && fsync(descriptor) == 0
        let syncError = error ?? (synced ? nil : failure("cannot sync \(temporary)"))
        close(descriptor)
        if let syncError {
            unlink(temporary)
            throw syncError
        }
        guard rename(temporary, final) == 0 else {
            let renameError = failure("cannot rename \(temporary) to \(final)")
            unlink(temporary)
            throw renameError
        }
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
        cache.withLock { _ = $0.removeValue(forKey: name) }
        guard let stored = file(named: name) else { throw Failure(description: "\(final) vanished after writing") }
        return (stored, true)
    }

    /// The stored file called `name`, or nil when there is none or `name` is not a media file name
    /// (`<64 lowercase hex>.<known extension>`: nothing else is ever joined to the directory's path).
    func file(named name: String) -> StoredFile? {
        if let cached = cache.withLock({ $0[name] }) { return cached }  // only valid names are ever cached
        guard let type = Self.type(ofName: name) else { return nil }
        let path = path(of: name)
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0 else { return nil }
        let file = StoredFile(
            name: name, sha256: String(name.prefix(64)), type: type, size: Int64(status.st_size), path: path,
            lastModified: HTTPDate.format(secondsSince1970: Int64(status.st_mtim.tv_sec)))
        cache.withLock { cache in
            if cache.count >= cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[name] = file
        }
        return file
    }

    /// The type named by a valid media file name (`^[0-9a-f]{64}\.[a-z0-9]{2,4}$` with a known extension).
    static func type(ofName name: String) -> MediaType? {
        let utf8 = name.utf8
        guard (67...69).contains(utf8.count) else { return nil }
        var index = 0
        var fileExtension: [UInt8] = []
        for byte in utf8 {
            switch index {
            case 0..<64:
                guard (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) else { return nil }
            case 64:
                guard byte == UInt8(ascii: ".") else { return nil }
            default:
                guard (0x30...0x39).contains(byte) || (0x61...0x7A).contains(byte) else { return nil }
                fileExtension.append(byte)
            }
            index += 1
        }
        return MediaType.forExtension(String(decoding: fileExtension, as: UTF8.self))
    }

    private func path(of name: String) -> String { directory + "/" + name }

    private func failure(_ what: String) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(errno)))")
    }
}
