/// An HTTP/2 error code (RFC 9113 §7), as carried by `RST_STREAM` and `GOAWAY` frames.
///
/// An open set: a server may send codes this type has no name for, and they keep their number.
package struct HTTP2ErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// The code as sent on the wire.
    package let rawValue: UInt32

    /// Wraps a code received or to be sent.
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Graceful: a `GOAWAY` before closing, or a `RST_STREAM` after a complete response.
    package static let noError = Self(rawValue: 0x0)
    /// The peer broke the protocol.
    package static let protocolError = Self(rawValue: 0x1)
    /// The peer failed internally.
    package static let internalError = Self(rawValue: 0x2)
    /// Flow control was violated.
    package static let flowControlError = Self(rawValue: 0x3)
    /// `SETTINGS` were not acknowledged in time.
    package static let settingsTimeout = Self(rawValue: 0x4)
    /// A frame arrived on a half-closed stream.
    package static let streamClosed = Self(rawValue: 0x5)
    /// A frame had an invalid size.
    package static let frameSizeError = Self(rawValue: 0x6)
    /// The stream was not processed at all: safe to send again.
    package static let refusedStream = Self(rawValue: 0x7)
    /// The stream is no longer needed.
    package static let cancel = Self(rawValue: 0x8)
    /// The header compression context broke.
    package static let compressionError = Self(rawValue: 0x9)
    /// A CONNECT tunnel failed.
    package static let connectError = Self(rawValue: 0xA)
    /// The peer finds the sender too busy or abusive: slow down (APNs sends it to over-eager providers).
    package static let enhanceYourCalm = Self(rawValue: 0xB)
    /// The TLS setup is not good enough.
    package static let inadequateSecurity = Self(rawValue: 0xC)
    /// The request must be sent over HTTP/1.1.
    package static let http11Required = Self(rawValue: 0xD)

    private static let names = [
        "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
        "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
        "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
    ]

    /// The RFC's name, e.g. `ENHANCE_YOUR_CALM`, or the number for codes it does not define.
    package var description: String {
        rawValue < Self.names.count ? Self.names[Int(rawValue)] : "0x" + String(rawValue, radix: 16)
    }
}
