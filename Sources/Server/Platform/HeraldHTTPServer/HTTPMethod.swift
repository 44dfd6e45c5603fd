/// An HTTP request method. Open: any token the client sends is representable.
package struct HTTPMethod: Sendable, Hashable, CustomStringConvertible {
    /// The method as written on the wire, upper case.
    package let rawValue: String

    /// The method `rawValue` (upper-cased).
    package init(_ rawValue: String) { self.rawValue = rawValue.uppercased() }

    package static let get = HTTPMethod("GET")
    package static let head = HTTPMethod("HEAD")
    package static let post = HTTPMethod("POST")
    package static let put = HTTPMethod("PUT")
    package static let patch = HTTPMethod("PATCH")
    package static let delete = HTTPMethod("DELETE")
    package static let options = HTTPMethod("OPTIONS")

    package var description: String { rawValue }
}
