import HeraldModel
import HeraldTesting
import Testing

extension StoreBackend: CustomTestStringConvertible {
    public var testDescription: String { rawValue }
}

/// Fixed times for tests.
func at(_ seconds: Int64) -> Timestamp { Timestamp(milliseconds: 1_700_000_000_000 + seconds * 1000) }
