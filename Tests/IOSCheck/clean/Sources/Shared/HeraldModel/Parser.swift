/// A typed-throws closure passed straight to a stdlib `with…` call: never stored.
enum Parser {
    static func parse(_ bytes: [UInt8]) throws(ParseError) -> Int {
        try bytes.withUnsafeBufferPointer { buffer throws(ParseError) in
            guard !buffer.isEmpty else { throw ParseError() }
            return buffer.count
        }
    }
}

struct ParseError: Error {}
