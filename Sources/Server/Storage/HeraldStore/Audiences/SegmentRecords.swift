import HeraldModel

/// Segments: named filters, unique by name in a business (a taken name is `StoreError.conflict` on `name`).
package struct SegmentRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    static let columns = "id, business_id, name, filter, created_at"

    /// A row as a segment; a stored filter that no longer reads (written by a newer Herald) is a database error.
    static func decode(_ row: SQLRow) throws -> Segment {
        let filter: SegmentFilter
        do {
            filter = try SegmentFilter(json: try JSON.parse(row.text(3)))
        } catch {
            throw StoreError(.database, "segment \(row.int(0)) has a filter this version cannot read")
        }
        return Segment(
            id: row.int(0), businessID: row.int(1), name: row.text(2), filter: filter, createdAt: row.timestamp(4))
    }

    /// Creates a segment.
    package func insert(businessID: Int64, name: String, filter: SegmentFilter, at now: Timestamp) throws -> Segment {
        try Self.decode(
            try tx.connection.row(
                """
                INSERT INTO segments (business_id, name, filter, created_at)
                VALUES (\(businessID), \(name), \(filter.json.encodedString), \(now))
                RETURNING \(raw: Self.columns)
                """)!)
    }

    /// The segment `id` of `businessID`.
    package func find(businessID: Int64, id: Int64) throws -> Segment? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM segments WHERE id = \(id) AND business_id = \(businessID)"
        ).map(Self.decode)
    }

    /// A business's segments by id, after `cursor`, at most `limit`.
    package func all(businessID: Int64, after cursor: Int64 = 0, limit: Int) throws -> [Segment] {
        try tx.connection.rows(
            """
            SELECT \(raw: Self.columns) FROM segments WHERE business_id = \(businessID) AND id > \(cursor)
            ORDER BY id LIMIT \(max(0, limit))
            """
        ).map(Self.decode)
    }

    /// Deletes the segment `id` of `businessID`; false when there was none.
    package func delete(businessID: Int64, id: Int64) throws -> Bool {
        try tx.connection.execute("DELETE FROM segments WHERE id = \(id) AND business_id = \(businessID)") > 0
    }
}
