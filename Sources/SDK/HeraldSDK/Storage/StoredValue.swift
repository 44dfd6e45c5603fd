import HeraldModel

/// Reading and writing a JSON document under one storage key.
struct StoredValue: Sendable {
    /// The storage.
    let storage: any PersistentStorage
    /// The key.
    let key: String

    /// The stored document: nil when nothing is stored, or when what is stored isn't JSON (a damaged file is
    /// dropped rather than blocking the SDK for ever). Throws when storage is unavailable.
    func load() throws(StorageError) -> JSON? {
        guard let bytes = try storage.read(key) else { return nil }
        return try? JSON.parse(bytes)
    }

    /// Stores `value`.
    func save(_ value: JSON) throws(StorageError) {
        try storage.write(key, value.encoded)
    }

    /// Removes the document.
    func clear() throws(StorageError) {
        try storage.remove(key)
    }
}
