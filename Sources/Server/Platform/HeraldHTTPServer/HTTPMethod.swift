/// An HTTP request method. Open: any token the client sends is representable.
public struct HTTPMethod: Sendable, Hashable, CustomStringConvertible {
    /// The method as written on the wire, upper case.
    public let rawValue: String

    /// The method `rawValue` (upper-cased).
    public init(_ rawValue: String) { self.rawValue = rawValue.uppercased() }

    public static let get = HTTPMethod("GET")
    public static let head = HTTPMethod("HEAD")
    public static let post = HTTPMethod("POST")
    public static let put = HTTPMethod("PUT")
    public static let patch = HTTPMethod("PATCH")
    public static let delete = HTTPMethod("DELETE")
    public static let options = HTTPMethod("OPTIONS")

    public var description: String { rawValue }
}
