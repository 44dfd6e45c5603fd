import HeraldAPI
import HeraldStore

extension HeraldApplication {
    /// The store everything is kept in (its domain services'): for `herald admin`'s reads and tests. The HTTP layer
    /// itself never reaches it.
    public var store: Store { domain.store }
}
