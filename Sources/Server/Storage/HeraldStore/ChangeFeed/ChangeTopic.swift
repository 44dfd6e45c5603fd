/// What a `ChangeFeed` event is about: a name shared by every node (`delivery_queue`, `sessions`).
///
/// Names are short lowercase words (letters, digits, `_`, `.`; at most 48 bytes) so that every backend can carry
/// them as they are (PostgreSQL channel names are identifiers).
package struct ChangeTopic: Hashable, Sendable, CustomStringConvertible {
    /// The name.
    package let rawValue: String

    /// The topic named `rawValue`, which must follow the naming rule above.
    package init(_ rawValue: String) {
        precondition(Self.isValid(rawValue), "a change topic is 1–48 of a-z, 0-9, '_' and '.'")
        self.rawValue = rawValue
    }

    /// Whether `name` follows the naming rule.
    package static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 48
            && name.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
                    || byte == UInt8(ascii: ".")
            }
    }

    package var description: String { rawValue }
}
