extension String {
    /// Calls `body` with the string's UTF-8 bytes: in place when they are contiguous (a native string), without
    /// the mutable copy `withUTF8` needs (a retain and a release of the storage on every call, and for a string
    /// another thread made, such as a request's, each on a cache line that thread touches too); from a
    /// contiguous copy otherwise.
    @inlinable
    package func withBorrowedUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return try copy.withUTF8(body)
    }
}
