import HeraldModel

/// A JSON document kept in `primary` storage and moved there, the first time it is read, from where an earlier
/// version kept it (`legacy`): the install record moving from its file into the Keychain. The move copies first and
/// removes after, so a crash between the two leaves the document in both places (the old copy is removed at the next
/// read), never in neither: the install, its credential and its user survive the move.
///
/// ```swift
/// let install = MovingStoredValue(primary: keychain, legacy: files, key: "install")
/// let record = try install.load()   // from the Keychain, or moved there from the file
/// ```
struct MovingStoredValue: Sendable {
    /// Where the document lives.
    let primary: StoredValue
    /// Where it may still be, from before; nil when there is no other place.
    let legacy: StoredValue?

    /// `key` in `primary`, moved from `legacy` unless it is the same storage.
    init(primary: any PersistentStorage, legacy: (any PersistentStorage)?, key: String) {
        self.primary = StoredValue(storage: primary, key: key)
        self.legacy = legacy.map { StoredValue(storage: $0, key: key) }
    }

    /// The document, moved first if it is only in `legacy`; nil when neither holds it. Throws when either can't be
    /// read yet (before the first unlock): nothing is assumed.
    func load() throws(StorageError) -> JSON? {
        if let value = try primary.load() {
            // A copy left behind by a move that stopped half-way.
            if let legacy, (try? legacy.storage.read(legacy.key)) != nil { try? legacy.clear() }
            return value
        }
        guard let legacy, let old = try legacy.load() else { return nil }
        try primary.save(old)
        try? legacy.clear()
        return old
    }

    /// Stores `value` in `primary`.
    func save(_ value: JSON) throws(StorageError) { try primary.save(value) }

    /// Removes the document from both places.
    func clear() throws(StorageError) {
        try primary.clear()
        try legacy?.clear()
    }
}
