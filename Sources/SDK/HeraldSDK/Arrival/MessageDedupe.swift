import Foundation
import HeraldModel

/// The ids of the last messages this install has seen (200 by default), kept across restarts: a message that
/// arrives again, by push, pull or geofence, is recognised and not shown twice.
///
/// While storage is unavailable ids are remembered in memory and merged once it can be read.
final class MessageDedupe: @unchecked Sendable {
    private let lock = NSLock()
    private let store: StoredValue
    private let capacity: Int
    private let diagnostics: @Sendable (HeraldDiagnostic) -> Void
    private var ids: [String] = []
    private var loaded = false

    init(storage: any PersistentStorage, capacity: Int, diagnostics: @escaping @Sendable (HeraldDiagnostic) -> Void) {
        store = StoredValue(storage: storage, key: "seen-messages")
        self.capacity = max(1, capacity)
        self.diagnostics = diagnostics
    }

    /// True the first time `id` is seen (it is remembered from then on), false every time after.
    func admit(_ id: String) -> Bool {
        lock.withLock {
            loadLocked()
            guard !ids.contains(id) else { return false }
            ids.append(id)
            if ids.count > capacity { ids.removeFirst(ids.count - capacity) }
            saveLocked()
            return true
        }
    }

    /// True when `id` has been seen.
    func contains(_ id: String) -> Bool {
        lock.withLock {
            loadLocked()
            return ids.contains(id)
        }
    }

    /// The remembered ids, oldest first.
    var remembered: [String] {
        lock.withLock {
            loadLocked()
            return ids
        }
    }

    /// Forgets everything (deleteMyData).
    func clear() {
        lock.withLock {
            ids = []
            try? store.clear()
        }
    }

    private func loadLocked() {
        guard !loaded else { return }
        do {
            let stored = try store.load()?.arrayValue?.compactMap(\.stringValue) ?? []
            var merged = stored
            for id in ids where !merged.contains(id) { merged.append(id) }
            if merged.count > capacity { merged.removeFirst(merged.count - capacity) }
            ids = merged
            loaded = true
            if !ids.isEmpty && ids != stored { saveLocked() }
        } catch {
            // Unavailable: remember in memory for now.
        }
    }

    private func saveLocked() {
        guard loaded else { return }
        do {
            try store.save(.array(ids.map { .string($0) }))
        } catch {
            diagnostics(HeraldDiagnostic(code: .storage, message: "seen messages not stored: \(error)"))
        }
    }
}
