import Foundation

/// Storage in memory: for tests, and for an app that wants nothing kept. `available` can be switched off to
/// play a device before its first unlock.
public final class MemoryStorage: PersistentStorage, @unchecked Sendable {
    private let lock = NSLock()
    private var blobs: [String: [UInt8]] = [:]
    private var available = true
    private var writes = 0

    /// Empty storage.
    public init() {}

    /// Whether it is available.
    public func isAvailable() -> Bool { lock.withLock { available } }

    /// Makes it available or not.
    public func setAvailable(_ value: Bool) { lock.withLock { available = value } }

    /// How many writes and removals it has had.
    public var writeCount: Int { lock.withLock { writes } }

    /// The stored keys, sorted.
    public var keys: [String] { lock.withLock { blobs.keys.sorted() } }

    public func read(_ key: String) throws(StorageError) -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        guard available else { throw StorageError(code: .unavailable, detail: key) }
        return blobs[key]
    }

    public func write(_ key: String, _ bytes: [UInt8]) throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        guard available else { throw StorageError(code: .unavailable, detail: key) }
        blobs[key] = bytes
        writes += 1
    }

    public func remove(_ key: String) throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        guard available else { throw StorageError(code: .unavailable, detail: key) }
        blobs[key] = nil
        writes += 1
    }
}
