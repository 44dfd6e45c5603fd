/// A typed-throws function type stored, optional and generic: below iOS 18 the runtime has no metadata for them.
final class EventSender {
    typealias Send = @Sendable ([String]) async throws(SendError) -> Int

    var send: Send?
    var handler: (() throws(SendError) -> Void)?

    func run<T>(_ body: () throws(SendError) -> T) rethrows -> T? { nil }
}

struct SendError: Error {}
