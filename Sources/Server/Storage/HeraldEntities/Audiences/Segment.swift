import HeraldModel

/// A named audience of a business: the devices its filter selects, worked out each time it is used.
public struct Segment: Sendable, Equatable {
    /// Store id.
    public var id: Int64
    /// Owning business.
    public var businessID: Int64
    /// Its name, unique in the business.
    public var name: String
    /// Which devices it holds.
    public var filter: SegmentFilter
    /// When it was made.
    public var createdAt: Timestamp

    /// A segment record.
    public init(id: Int64, businessID: Int64, name: String, filter: SegmentFilter, createdAt: Timestamp) {
        self.id = id
        self.businessID = businessID
        self.name = name
        self.filter = filter
        self.createdAt = createdAt
    }
}
