extension Result {
    /// The success, or the failure thrown as its own type. (`get()` throws its own type only in Swift 6's standard
    /// library, which iOS before 18 does not have: the SDK's modules use this instead.)
    package func value() throws(Failure) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let error): throw error
        }
    }
}
