import HeraldModel

/// A named audience of a business: the devices its filter selects, worked out each time it is used.
package struct Segment: Sendable, Equatable {
    /// Store id.
    package var id: Int64
    /// Owning business.
    package var businessID: Int64
    /// Its name, unique in the business.
    package var name: String
    /// Which devices it holds.
    package var filter: SegmentFilter
    /// When it was made.
    package var createdAt: Timestamp

    /// A segment record.
    package init(id: Int64, businessID: Int64, name: String, filter: SegmentFilter, createdAt: Timestamp) {
        self.id = id
        self.businessID = businessID
        self.name = name
        self.filter = filter
        self.createdAt = createdAt
    }
}
