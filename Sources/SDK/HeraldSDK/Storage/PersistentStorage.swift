/// Where the SDK keeps what must survive a restart (the install's identity and credential, seen message ids, the
/// event queue, geofences): a few named blobs.
///
/// Two promises every implementation keeps:
/// - writes are atomic: a reader sees the old bytes or the new ones, never a mix, even after a crash;
/// - nothing is read before it is available: while `isAvailable()` is false (an iPhone's protected data before
///   its first unlock, when iOS pre-warms an app) reads throw `StorageError.unavailable` instead of answering
///   "nothing stored", so the SDK waits rather than starting a new identity.
public protocol PersistentStorage: Sendable {
    /// Whether reads and writes can be done now.
    func isAvailable() -> Bool
    /// The bytes stored under `key`, or nil when nothing is.
    func read(_ key: String) throws(StorageError) -> [UInt8]?
    /// Stores `bytes` under `key`, replacing what was there, atomically.
    func write(_ key: String, _ bytes: [UInt8]) throws(StorageError)
    /// Removes what is stored under `key` (nothing happens when nothing is).
    func remove(_ key: String) throws(StorageError)
}

/// Why storage could not be used.
public struct StorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public let code: Code
    /// The key involved and the system's explanation.
    public let detail: String

    /// An error.
    public init(code: Code, detail: String) {
        self.code = code
        self.detail = detail
    }

    /// `unavailable: install`.
    public var description: String { "\(code.rawValue): \(detail)" }

    /// The kinds of failure. Open.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The code's name.
        public let rawValue: String
        /// The code named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Not readable yet (protected data before first unlock): try again later, assume nothing.
        public static let unavailable = Code(rawValue: "unavailable")
        /// The system refused the read or write.
        public static let failed = Code(rawValue: "failed")
    }
}
