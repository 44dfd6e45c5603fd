/// A value bound to a statement or read from a row.
package enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// Types that bind as one SQL value.
package protocol SQLBindable {
    /// The value to bind.
    var sqlValue: SQLValue { get }
}

extension Int64: SQLBindable { package var sqlValue: SQLValue { .integer(self) } }
extension Int: SQLBindable { package var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Double: SQLBindable { package var sqlValue: SQLValue { .real(self) } }
extension String: SQLBindable { package var sqlValue: SQLValue { .text(self) } }
extension Bool: SQLBindable { package var sqlValue: SQLValue { .integer(self ? 1 : 0) } }
extension Array: SQLBindable where Element == UInt8 { package var sqlValue: SQLValue { .blob(self) } }
extension SQLValue: SQLBindable { package var sqlValue: SQLValue { self } }
extension Optional: SQLBindable where Wrapped: SQLBindable {
    package var sqlValue: SQLValue { self?.sqlValue ?? .null }
}
