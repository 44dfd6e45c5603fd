/// A typed-throws closure literal kept in a variable.
let retry = { () throws(RetryError) -> Int in 1 }

struct RetryError: Error {}
