import HeraldModel
import HeraldStore

/// A business's segments: named filters of its devices, counted in the database when asked.
///
/// ```swift
/// let segments = SegmentService(store: store, clock: clock)
/// let vip = try segments.create(businessID: id, name: "VIP", filter: .attribute("tier", .eq(.string("gold"))))
/// let (segment, count) = try segments.find(businessID: id, id: vip.id)
/// ```
package struct SegmentService: Sendable {
    let store: Store
    let clock: WallClock

    /// The service over `store`.
    package init(store: Store, clock: WallClock) {
        self.store = store
        self.clock = clock
    }

    /// Saves a segment; a name the business already uses is `StoreError.conflict` on `name`.
    package func create(businessID: Int64, name: String, filter: SegmentFilter) throws -> Segment {
        let now = clock.now()
        return try store.transaction {
            try $0.segments.insert(businessID: businessID, name: name, filter: filter, at: now)
        }
    }

    /// The segment `id` of `businessID` and how many live devices it holds now.
    package func find(businessID: Int64, id: Int64) throws -> (segment: Segment, count: Int) {
        let now = clock.now()
        return try store.read { tx in
            guard let segment = try tx.segments.find(businessID: businessID, id: id) else {
                throw DomainError.notFound("segment")
            }
            let count = try tx.audiences.count(
                businessID: businessID, audience: .segment(segment.filter), sandboxOnly: false, at: now)
            return (segment, count)
        }
    }

    /// How many live devices of `businessID` a filter selects now.
    package func count(businessID: Int64, filter: SegmentFilter) throws -> Int {
        let now = clock.now()
        return try store.read { tx in
            try tx.audiences.count(businessID: businessID, audience: .segment(filter), sandboxOnly: false, at: now)
        }
    }

    /// A business's segments by id, after `cursor`, at most `limit`.
    package func list(businessID: Int64, after cursor: Int64, limit: Int) throws -> [Segment] {
        try store.read { try $0.segments.all(businessID: businessID, after: cursor, limit: limit) }
    }

    /// Deletes the segment `id` of `businessID`.
    package func delete(businessID: Int64, id: Int64) throws {
        guard try store.transaction({ try $0.segments.delete(businessID: businessID, id: id) }) else {
            throw DomainError.notFound("segment")
        }
    }
}
