import HeraldStore
import Testing

@Suite("SQLQuery")
struct SQLQueryTests {
    @Test("values are bound, never spliced")
    func valuesAreBound() {
        let name = "Robert'); DROP TABLE users;--"
        let query: SQLQuery = "SELECT id FROM users WHERE business_id = \(Int64(7)) AND email = \(name)"
        #expect(query.sql == "SELECT id FROM users WHERE business_id = ? AND email = ?")
        #expect(query.bindings == [.integer(7), .text(name)])
    }

    @Test("an IN list is padded to a power of two with its last value, so few statements serve every length")
    func listIsPadded() {
        let three: SQLQuery = "SELECT 1 WHERE id IN (\(list: [Int64(4), 5, 6]))"
        #expect(three.sql == "SELECT 1 WHERE id IN (?, ?, ?, ?)")
        #expect(three.bindings == [.integer(4), .integer(5), .integer(6), .integer(6)])

        let four: SQLQuery = "IN (\(list: [Int64(1), 2, 3, 4]))"
        #expect(four.bindings.count == 4)
        let one: SQLQuery = "IN (\(list: [Int64(9)]))"
        #expect(one.sql == "IN (?)")
        let lengths = Set(
            (1...500).map { count in
                let query: SQLQuery = "IN (\(list: (0..<Int64(count)).map { $0 }))"
                return query.sql
            })
        #expect(lengths.count == 10)  // 1, 2, 4, …, 512
    }

    @Test("an empty IN list matches nothing")
    func emptyList() {
        let query: SQLQuery = "SELECT 1 WHERE id IN (\(list: [Int64]()))"
        #expect(query.sql == "SELECT 1 WHERE id IN (NULL)")
        #expect(query.bindings.isEmpty)
    }
}
