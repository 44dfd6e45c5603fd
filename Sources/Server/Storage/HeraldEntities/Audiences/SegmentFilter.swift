import HeraldModel

/// Which devices a segment holds: conditions on the attributes of the device's user, the device's own segments
/// (what the app put it in), its platform and when it was last seen, combined with `all`, `any` and `not`.
///
/// Read from its JSON form with `SegmentFilter(json:)` (every node checked, errors naming the node's path), written
/// back with `json`, and evaluated in the database by `AudienceRecords` (never by loading users):
///
/// ```swift
/// let filter = try SegmentFilter(json: try JSON.parse(#"""
///     {"all":[{"attribute":"tier","op":"in","value":["gold","platinum"]},
///             {"not":{"segment":"opted_out"}},
///             {"last_seen_within_days":30}]}
///     """#))
/// let count = try store.read { try $0.audiences.count(businessID: id, audience: .segment(filter), sandboxOnly: false, at: now) }
/// ```
///
/// Every condition is true or false for every device (a device without a user has no attributes), so `not` is the
/// exact opposite of what it wraps.
package indirect enum SegmentFilter: Sendable, Equatable {
    /// Every one of the conditions (an empty list: every device).
    case all([SegmentFilter])
    /// At least one of the conditions (an empty list: no device).
    case any([SegmentFilter])
    /// The opposite of the condition.
    case not(SegmentFilter)
    /// A test of the user's attribute `key`.
    case attribute(String, AttributeTest)
    /// The device is in the app-defined segment (`PUT /api/v1/device/segments`).
    case segment(String)
    /// The device is reached through this push platform (`ios`: APNs, `android`: FCM).
    case platform(PushPlatform)
    /// The device's SDK called within this many days (a device only the Punchh API knows never did).
    case lastSeenWithinDays(Int)

    /// A test of one attribute.
    package enum AttributeTest: Sendable, Equatable {
        /// The attribute has this value (of the same kind: `"30"` is not `30`).
        case eq(AttributeValue)
        /// The exact opposite of `eq`: users without the attribute (and devices without a user) match too.
        case ne(AttributeValue)
        /// The attribute is a number below this number, or a string before this string (by UTF-8 bytes).
        case lt(AttributeValue)
        /// The attribute is a number above this number, or a string after this string (by UTF-8 bytes).
        case gt(AttributeValue)
        /// The attribute equals one of these values.
        case `in`([AttributeValue])
        /// The user has the attribute (whatever its value).
        case exists
    }

    /// A value an attribute is compared with: attributes are strings, numbers or booleans.
    package enum AttributeValue: Sendable, Hashable {
        /// A string, compared as a string.
        case string(String)
        /// A number, compared as a number (a double: integers exact up to 2^53).
        case number(Double)
        /// A boolean (for `eq`, `ne` and `in`).
        case bool(Bool)
    }
}

extension SegmentFilter {
    /// The most nodes a filter may have.
    package static let maximumNodes = 200
    /// The deepest nesting of `all`, `any` and `not`.
    package static let maximumDepth = 10
    /// The most values of one `in`.
    package static let maximumInValues = 500
    /// The most values of all the `in`s of a filter.
    package static let maximumValues = 2_000
    /// The longest attribute key, device segment or string value, in characters.
    package static let maximumKeyLength = 100
    /// The longest string value, in bytes.
    package static let maximumStringBytes = 1_000

    /// Whether `key` may name an attribute: 1–100 ASCII letters, digits, `_`, `-`, `.` and `:` (what an import
    /// accepts, so every stored attribute can be named).
    package static func isAttributeKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= maximumKeyLength
            && key.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F
                    || $0 == 0x2D || $0 == 0x2E || $0 == 0x3A
            }
    }

    /// Whether the filter reads users' attributes (the device's user must be joined).
    package var readsAttributes: Bool {
        switch self {
        case .all(let filters), .any(let filters): return filters.contains { $0.readsAttributes }
        case .not(let filter): return filter.readsAttributes
        case .attribute: return true
        case .segment, .platform, .lastSeenWithinDays: return false
        }
    }
}
