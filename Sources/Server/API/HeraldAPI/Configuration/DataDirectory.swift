import Foundation
import HeraldCrypto

/// The data directory: the database file, the sealing key and the generated admin token live here,
/// readable by Herald's user only.
package struct DataDirectory: Sendable {
    /// The directory's path.
    package let path: String

    /// Why a file in the data directory could not be used.
    package struct Failure: Error, CustomStringConvertible {
        /// What went wrong (never a secret).
        package let description: String
    }

    /// Creates the directory (mode 0700) if it doesn't exist.
    package init(path: String) throws {
        self.path = path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw Failure(description: "data dir \(path) is not a directory") }
        } else {
            do {
                try FileManager.default.createDirectory(
                    atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw Failure(description: "cannot create data dir \(path): \(error.localizedDescription)")
            }
        }
    }

    /// Claims the directory for this process alone, until it exits: `herald serve` holds the claim while it runs,
    /// and `herald restore` takes it so that it never replaces a database a server has open. A second claim, from
    /// another process, fails naming the one that holds it.
    ///
    /// An advisory `flock` on `serve.lock`, never a lock on the database: closing any descriptor of `herald.db`
    /// would drop the locks SQLite holds on it (POSIX record locks belong to the whole process).
    package func claimForThisProcess() throws {
        let path = file("serve.lock")
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? read("serve.lock")).flatMap { $0.isEmpty ? nil : " (pid \($0))" } ?? ""
            close(descriptor)
            throw Failure(
                description: "another herald serve\(holder) is running on data dir \(self.path): stop it first "
                    + "(the herald admin commands and herald backup may run beside it)")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        // The descriptor stays open, and the lock held, until the process exits.
    }

    /// The path of `name` inside the directory.
    package func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// The text of `name`, or nil if it doesn't exist.
    func read(_ name: String) throws -> String? {
        let path = file(name)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(description: "cannot read \(path)")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Writes `text` to `name` with mode 0600, atomically.
    func writeSecret(_ text: String, to name: String) throws {
        let path = file(name)
        let temporary = path + ".tmp"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data((text + "\n").utf8), attributes: [.posixPermissions: 0o600])
        else { throw Failure(description: "cannot write \(temporary)") }
        guard rename(temporary, path) == 0 else { throw Failure(description: "cannot rename \(temporary) to \(path)") }
    }

    /// The key sealing secrets at rest: `configured` (HERALD_SECRET_KEY, hex or base64 of 32 bytes) if set,
    /// else `secret.key` in the directory, generated on first start.
    package func secretKey(configured: String?) throws -> [UInt8] {
        if let configured {
            guard let key = Self.decodeKey(configured) else {
                throw Failure(description: "HERALD_SECRET_KEY must be 32 bytes, as 64 hex digits or base64")
            }
            return key
        }
        if let stored = try read("secret.key") {
            guard let key = Self.decodeKey(stored) else {
                throw Failure(description: "\(file("secret.key")) is not a 32-byte hex key")
            }
            try ensurePrivate("secret.key")
            return key
        }
        let key = SecretBox.generateKey()
        try writeSecret(Hex.encode(key), to: "secret.key")
        return key
    }

    /// The admin token: `configured` (HERALD_ADMIN_TOKEN) if set, else the one kept in `admin-token`,
    /// generated on first start. `generated` is true when it was made just now (print it once).
    package func adminToken(configured: String?) throws -> (token: String, generated: Bool) {
        if let configured { return (configured, false) }
        if let stored = try read("admin-token"), !stored.isEmpty {
            try ensurePrivate("admin-token")
            return (stored, false)
        }
        let token = "hadm_" + Base64URL.encode(SecureRandom.bytes(count: 32))
        try writeSecret(token, to: "admin-token")
        return (token, true)
    }

    /// This node's stable id (the owner of its delivery leases), generated on first start.
    package func nodeID() throws -> String {
        if let stored = try read("node-id"), !stored.isEmpty { return stored }
        let id = "node-" + Hex.encode(SecureRandom.bytes(count: 8))
        try writeSecret(id, to: "node-id")
        return id
    }

    private func ensurePrivate(_ name: String) throws {
        _ = chmod(file(name), 0o600)
    }

    static func decodeKey(_ text: String) -> [UInt8]? {
        if let bytes = Hex.decode(text), bytes.count == 32 { return bytes }
        if let data = Data(base64Encoded: text), data.count == 32 { return Array(data) }
        if let bytes = Base64URL.decode(text), bytes.count == 32 { return bytes }
        return nil
    }
}
