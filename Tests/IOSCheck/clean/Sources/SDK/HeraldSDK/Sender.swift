/// Typed throws where they need no runtime support: methods, protocol requirements, `do throws`.
protocol Transport: Sendable {
    func send(_ bytes: [UInt8]) async throws(SendError) -> Int
}

struct Sender {
    /// Plain `throws` at the stored seam; only `SendError` is thrown.
    var send: @Sendable ([UInt8]) async throws -> Int

    func sendAll<T>(_ items: [T]) throws(SendError) -> Int where T: Sendable {
        do throws(SendError) {
            return try check(items.count)
        }
    }

    init?(
        send: @escaping @Sendable ([UInt8]) async throws -> Int
    ) throws(SendError) {
        self.send = send
    }

    private func check(_ count: Int) throws(SendError) -> Int { count }
}

struct SendError: Error {}
