/// An amount of money in minor units (cents): kept and added as whole numbers, so that 0.1 + 0.2 is 0.3 and a
/// balance read back is the balance written. The APIs show it as a decimal number (`2.5`, or `3` when whole).
///
/// ```swift
/// let discount = Money(decimal: 2.5)!   // 250 cents
/// discount.text                        // "2.50"
/// Money(cents: 300).text               // "3"
/// ```
public struct Money: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The amount in hundredths.
    public var cents: Int64

    /// An amount of `cents` hundredths.
    public init(cents: Int64) { self.cents = cents }

    /// A decimal amount rounded to the cent; nil when it is not finite or beyond ±90 trillion.
    public init?(decimal: Double) {
        let scaled = (decimal * 100).rounded()
        guard scaled.isFinite, abs(scaled) < 9e15 else { return nil }
        cents = Int64(scaled)
    }

    /// No money.
    public static let zero = Money(cents: 0)

    /// The amount as a decimal number (for JSON).
    public var decimal: Double { Double(cents) / 100 }

    /// As people write it: `3` when whole, else `2.50`.
    public var text: String {
        let sign = cents < 0 ? "-" : ""
        let magnitude = cents.magnitude
        let units = magnitude / 100
        let hundredths = magnitude % 100
        if hundredths == 0 { return sign + String(units) }
        return sign + String(units) + "." + (hundredths < 10 ? "0" : "") + String(hundredths)
    }

    /// A JSON number: an integer when whole (the seed's `"rd": 3`), else a decimal.
    public var json: JSON { cents % 100 == 0 ? .int(cents / 100) : .double(decimal) }

    public var description: String { text }

    public static func < (lhs: Money, rhs: Money) -> Bool { lhs.cents < rhs.cents }
    public static func + (lhs: Money, rhs: Money) -> Money { Money(cents: lhs.cents + rhs.cents) }
    public static func - (lhs: Money, rhs: Money) -> Money { Money(cents: lhs.cents - rhs.cents) }
}
