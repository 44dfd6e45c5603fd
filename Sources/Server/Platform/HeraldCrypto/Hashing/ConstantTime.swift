import COpenSSL

/// Comparisons whose running time does not depend on where the inputs differ, for MACs, digests and tokens.
///
/// ```swift
/// ConstantTime.equals(expectedMAC, presentedMAC)
/// ```
package enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes (`CRYPTO_memcmp`). Inputs of different lengths are unequal at once:
    /// only the contents are protected, not the length.
    package static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in
                CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
            }
        }
    }
}
