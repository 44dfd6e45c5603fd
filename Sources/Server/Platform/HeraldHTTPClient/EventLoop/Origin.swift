import HeraldModel

/// The scheme, host and port a pool of connections serves.
struct Origin: Sendable, Equatable {
    var isTLS: Bool
    /// The host, lowercased, without IPv6 brackets: what is resolved, and checked against the certificate.
    var host: String
    var port: Int
    /// `host[:port]` as sent in `:authority` / `Host` (the port only when it is not the scheme's default).
    var authority: String

    init(isTLS: Bool, host: String, port: Int) {
        self.isTLS = isTLS
        self.host = host
        self.port = port
        let bracketed = host.contains(":") ? "[\(host)]" : host
        authority = port == (isTLS ? 443 : 80) ? bracketed : "\(bracketed):\(port)"
    }

    /// The origin of `target` in `url`.
    init(_ target: RequestTarget, in url: UnsafeBufferPointer<UInt8>) {
        let host = String(
            unsafeUninitializedCapacity: target.hostEnd - target.hostStart,
            initializingUTF8With: { buffer in
                for index in target.hostStart..<target.hostEnd {
                    let byte = url[index]
                    buffer[index - target.hostStart] = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
                }
                return target.hostEnd - target.hostStart
            })
        self.init(isTLS: target.isTLS, host: host, port: target.port)
    }

    /// Whether `target` in `url` names this origin (host compared without regard to case), without allocating.
    func matches(_ target: RequestTarget, in url: UnsafeBufferPointer<UInt8>) -> Bool {
        guard target.isTLS == isTLS, target.port == port else { return false }
        return host.withBorrowedUTF8 { own in
            guard own.count == target.hostEnd - target.hostStart else { return false }
            for index in 0..<own.count {
                let byte = url[target.hostStart + index]
                if (byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte) != own[index] { return false }
            }
            return true
        }
    }
}
