/// The text rules surveys share, written out scalar by scalar so the server and every SDK build agree
/// without depending on Foundation's character sets.
enum SurveyText {
    /// Unicode `White_Space` (UCD PropList), listed rather than looked up.
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
            return true
        default:
            return false
        }
    }

    /// A control character (general category Cc) other than tab and line feed.
    static func isForbiddenControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A: return false
        case 0x00...0x1F, 0x7F...0x9F: return true
        default: return false
        }
    }

    /// `text` without leading and trailing whitespace, trimmed a whole character at a time (a space carrying a
    /// combining mark is not whitespace).
    static func trimmed(_ text: Substring) -> Substring {
        func blank(_ character: Character) -> Bool { character.unicodeScalars.allSatisfy(isWhitespace) }
        var start = text.startIndex
        var end = text.endIndex
        while start < end, blank(text[start]) { start = text.index(after: start) }
        while start < end {
            let before = text.index(before: end)
            guard blank(text[before]) else { break }
            end = before
        }
        return text[start..<end]
    }

    /// `text` without leading and trailing whitespace.
    static func trimmed(_ text: String) -> Substring { trimmed(text[...]) }

    /// True when `text` has more than `limit` characters (grapheme clusters), without counting past the limit.
    static func isLonger(_ text: Substring, than limit: Int) -> Bool {
        if text.utf8.count <= limit { return false }
        guard limit >= 0 else { return true }
        guard let last = text.index(text.startIndex, offsetBy: limit, limitedBy: text.endIndex) else { return false }
        return last != text.endIndex
    }

    /// True when `text` has a control character other than tab and line feed.
    static func hasForbiddenControl(_ text: Substring) -> Bool {
        text.unicodeScalars.contains(where: isForbiddenControl)
    }

    /// True for 1 to 64 characters from `A-Z a-z 0-9 _ -`.
    static func isIdentifier(_ text: String) -> Bool {
        let bytes = text.utf8
        guard (1...64).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }

    /// The message for an identifier that isn't one.
    static let identifierMessage = "must be 1 to 64 characters from A-Z, a-z, 0-9, _ and -"

    /// A number as messages show it: whole numbers without a fraction (`5`, not `5.0`).
    static func format(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return String(number)
    }

    /// True when `lhs` sorts before `rhs` by UTF-8 bytes: an order that is the same everywhere.
    static func bytewiseLess(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }
}
