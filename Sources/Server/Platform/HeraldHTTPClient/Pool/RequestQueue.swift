/// A double-ended queue on a ring buffer: requests waiting for a stream join at the back, and requests the
/// server refused without processing them go back to the front.
struct RequestQueue<Element: Sendable>: Sendable {
    private var storage: [Element?] = []
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    var first: Element? { count == 0 ? nil : storage[head] }

    mutating func append(_ element: Element) {
        growIfFull()
        storage[(head + count) % storage.count] = element
        count += 1
    }

    mutating func prepend(_ element: Element) {
        growIfFull()
        head = (head + storage.count - 1) % storage.count
        storage[head] = element
        count += 1
    }

    mutating func removeFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head + 1) % storage.count
        count -= 1
        if count == 0 { head = 0 }
        return element
    }

    /// Whether any element satisfies `predicate`.
    func contains(where predicate: (Element) -> Bool) -> Bool {
        for offset in 0..<count where predicate(storage[(head + offset) % storage.count]!) { return true }
        return false
    }

    /// Removes the elements `shouldRemove` picks, keeping the others in order; returns the removed ones in order.
    mutating func removeAll(where shouldRemove: (Element) -> Bool) -> [Element] {
        guard contains(where: shouldRemove) else { return [] }
        var kept: [Element?] = []
        var removed: [Element] = []
        kept.reserveCapacity(max(storage.count, 16))
        for offset in 0..<count {
            let element = storage[(head + offset) % storage.count]!
            if shouldRemove(element) { removed.append(element) } else { kept.append(element) }
        }
        count = kept.count
        kept.append(contentsOf: repeatElement(nil, count: max(storage.count, 16) - kept.count))
        storage = kept
        head = 0
        return removed
    }

    /// Removes and returns every element, in order.
    mutating func removeAllElements() -> [Element] {
        removeAll { _ in true }
    }

    private mutating func growIfFull() {
        guard count == storage.count else { return }
        var grown: [Element?] = []
        grown.reserveCapacity(max(16, storage.count * 2))
        for offset in 0..<count { grown.append(storage[(head + offset) % storage.count]) }
        grown.append(contentsOf: repeatElement(nil, count: max(16, storage.count * 2) - count))
        storage = grown
        head = 0
    }
}
