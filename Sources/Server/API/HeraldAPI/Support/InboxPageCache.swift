import Synchronization

/// Rendered inbox pages, keyed by user, page and the user's inbox version. An inbox changes far less often
/// than apps poll it; the version comes with the user row every authenticated call reads anyway, so a hit
/// costs no query and a stale page can't be served (the version is in the key, and in the store, so every
/// node agrees).
final class InboxPageCache: Sendable {
    struct Key: Hashable {
        let userID: Int64
        let version: Int64
        let quantity: Int
        let page: Int
    }

    private let pages = Mutex<[Key: [UInt8]]>([:])
    private let capacity: Int

    /// A cache of at most `capacity` pages (emptied when full: simple, and old versions go with it).
    init(capacity: Int = 20_000) { self.capacity = capacity }

    /// The page for `key`, rendering and keeping it on a miss.
    func page(_ key: Key, render: () throws -> [UInt8]) rethrows -> [UInt8] {
        if let cached = pages.withLock({ $0[key] }) { return cached }
        let rendered = try render()
        pages.withLock { pages in
            if pages.count >= capacity { pages.removeAll(keepingCapacity: true) }
            pages[key] = rendered
        }
        return rendered
    }
}
