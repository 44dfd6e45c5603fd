import CLibPQ
import HeraldStore

/// The type OIDs Herald binds and decodes (PostgreSQL's `pg_type.oid`, fixed for built-in types).
struct PostgresType: Hashable, Sendable {
    /// The OID.
    let oid: Oid

    /// Not given: the server infers the parameter's type from the statement.
    static let unspecified = Self(oid: 0)
    static let bool = Self(oid: 16)
    static let bytea = Self(oid: 17)
    static let int8 = Self(oid: 20)
    static let int2 = Self(oid: 21)
    static let int4 = Self(oid: 23)
    static let text = Self(oid: 25)
    static let oidType = Self(oid: 26)
    static let float4 = Self(oid: 700)
    static let float8 = Self(oid: 701)
    static let varchar = Self(oid: 1043)
    static let void = Self(oid: 2278)
    static let numeric = Self(oid: 1700)

    /// The type a value is bound as: int8, float8, text, bytea; a NULL leaves it to the server.
    static func of(_ value: SQLValue) -> Self {
        switch value {
        case .null: return .unspecified
        case .integer: return .int8
        case .real: return .float8
        case .text: return .text
        case .blob: return .bytea
        }
    }
}
