import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A server on the loopback that answers every connection with the same bytes, whatever they are: the peer of
/// the HTTP client's fuzzer (Tests/Fuzz/FuzzHTTP2Response) and of its tests of malformed responses. For each
/// connection, one at a time: in `.http2` it sends an empty SETTINGS frame (the server's preface) and reads the
/// client's preface and frames until its request on stream 1 has ended (a HEADERS or DATA frame with
/// END_STREAM); in `.http1` it reads until the end of the request's head. Then it sends `reply`, shuts its
/// writing side and reads what the client sends until the client closes. A second without a byte from the
/// client moves it on.
public final class CannedResponseServer: Sendable {
    public enum Mode: Sendable { case http1, http2 }

    public let port: Int
    /// What each connection is answered with.
    public let reply = Mutex<[UInt8]>([])
    /// A connection is accepted and not yet closed.
    public let busy = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)
    private let listener: Int32
    private let mode: Mode

    /// Listens on a free port of 127.0.0.1 and serves on a thread of its own until `stop()`.
    public init(_ mode: Mode) {
        guard let listener = LoopbackListener(backlog: 64) else { fatalError("cannot listen on the loopback") }
        self.mode = mode
        self.listener = listener.descriptor
        port = listener.port
        Thread { [self] in serve() }.start()
    }

    private func serve() {
        // SETTINGS, empty: the defaults (streams unlimited, 64 KiB windows).
        let settings: [UInt8] = [0, 0, 0, 0x04, 0, 0, 0, 0, 0]
        while true {
            let connection = accept(listener, nil, nil)
            if stopped.load(ordering: .acquiring) {
                if connection >= 0 { close(connection) }
                close(listener)
                return
            }
            guard connection >= 0 else {
                usleep(1000)  // out of descriptors, say: not a busy loop
                continue
            }
            busy.store(true, ordering: .releasing)
            defer { busy.store(false, ordering: .releasing) }
            var timeout = timeval(tv_sec: 1, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            if mode == .http2 { Self.write(settings, to: connection) }
            awaitRequest(on: connection)
            Self.write(reply.withLock { $0 }, to: connection)
            shutdown(connection, Int32(SHUT_WR))
            var scratch = [UInt8](repeating: 0, count: 16_384)
            while scratch.withUnsafeMutableBytes({ recv(connection, $0.baseAddress, $0.count, 0) }) > 0 {}
            close(connection)
        }
    }

    /// Stops serving once the connection being served, if any, is done, and closes the listening socket.
    public func stop() {
        stopped.store(true, ordering: .releasing)
        shutdown(listener, Int32(SHUT_RDWR))  // wakes the thread from accept
    }

    private static func write(_ bytes: [UInt8], to connection: Int32) {
        _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads until the client's request is in (see the type's description), the connection ends, or a second
    /// passes without a byte.
    private func awaitRequest(on connection: Int32) {
        var received: [UInt8] = []
        var offset = 24  // HTTP/2: the connection preface
        var scratch = [UInt8](repeating: 0, count: 16_384)
        while true {
            switch mode {
            case .http1:
                if received.count >= 4,
                    (0...(received.count - 4)).contains(where: { index in
                        received[index..<(index + 4)].elementsEqual([13, 10, 13, 10])
                    })
                {
                    return
                }
            case .http2:
                while received.count >= offset + 9 {
                    let length =
                        Int(received[offset]) << 16 | Int(received[offset + 1]) << 8 | Int(received[offset + 2])
                    let (type, flags) = (received[offset + 3], received[offset + 4])
                    let stream =
                        Int(received[offset + 5] & 0x7F) << 24 | Int(received[offset + 6]) << 16
                        | Int(received[offset + 7]) << 8 | Int(received[offset + 8])
                    guard received.count >= offset + 9 + length else { break }
                    offset += 9 + length
                    if stream == 1 && (type == 0 || type == 1) && flags & 1 != 0 { return }
                }
            }
            let count = scratch.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            received += scratch[..<count]
        }
    }
}

/// A TCP socket listening on 127.0.0.1 at a port of the kernel's choosing.
public struct LoopbackListener: Sendable {
    public let descriptor: Int32
    public let port: Int

    /// Nil when it cannot listen.
    public init?(backlog: Int32) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, backlog) == 0
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            _ = Glibc.close(descriptor)
            return nil
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    public func close() { _ = Glibc.close(descriptor) }
}
