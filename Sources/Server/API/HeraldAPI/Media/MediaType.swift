/// A kind of file iOS can attach to a notification (`UNNotificationAttachment`): its canonical extension, the
/// names it is also known by, its `Content-Type`, its size limit, and how to recognize its bytes.
///
/// ```swift
/// let type = MediaType.named("jpeg")!         // .jpg
/// type.matches(bytes)                         // FF D8 FF …
/// ```
struct MediaType: Sendable, Hashable {
    /// The extension files of this type are stored and served with (`jpg`): the `type` of a push's `media`.
    let name: String
    /// Other names accepted for it in uploads (`jpeg`).
    let aliases: [String]
    /// What it is served as.
    let contentType: String
    /// `Content-Type`s of uploads that mean this type.
    let uploadContentTypes: [String]
    /// How its first bytes look.
    let signature: Signature

    /// A recognizer of a file's leading bytes.
    struct Signature: Sendable, Hashable {
        fileprivate let test: Test

        fileprivate enum Test: Sendable, Hashable {
            case prefixes([[UInt8]])
            case chunk(container: [UInt8], form: [[UInt8]])
            case mp3
            case isoMedia(brands: Set<String>)
        }

        /// Starts with one of `prefixes`.
        static func prefix(_ prefixes: [UInt8]...) -> Signature { Signature(test: .prefixes(prefixes)) }
        /// A RIFF/IFF file: `container` (`RIFF`, `FORM`), a 4-byte size, then one of `form` (`WAVE`, `AIFF`).
        static func chunk(_ container: String, _ form: String...) -> Signature {
            Signature(test: .chunk(container: Array(container.utf8), form: form.map { Array($0.utf8) }))
        }
        /// An ISO base media file (`ftyp` box at offset 4) whose major or a compatible brand is one of `brands`.
        static func isoMedia(_ brands: Set<String>) -> Signature { Signature(test: .isoMedia(brands: brands)) }
        /// MP3: an ID3v2 tag or an MPEG audio frame header.
        static let mp3 = Signature(test: .mp3)
    }

    /// The largest upload of this type, in bytes (iOS's limit for its kind, from `MediaInput`).
    var maxBytes: Int { MediaInput.maxBytes(for: name)! }

    /// True when `bytes` start the way files of this type do.
    func matches(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { signature.test.matches($0) }
    }

    // MARK: - The types

    static let jpg = MediaType(
        name: "jpg", aliases: ["jpeg"], contentType: "image/jpeg", uploadContentTypes: ["image/jpeg", "image/jpg"],
        signature: .prefix([0xFF, 0xD8, 0xFF]))
    static let png = MediaType(
        name: "png", aliases: [], contentType: "image/png", uploadContentTypes: ["image/png"],
        signature: .prefix([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    static let gif = MediaType(
        name: "gif", aliases: [], contentType: "image/gif", uploadContentTypes: ["image/gif"],
        signature: .prefix(Array("GIF87a".utf8), Array("GIF89a".utf8)))
    static let mp3 = MediaType(
        name: "mp3", aliases: [], contentType: "audio/mpeg", uploadContentTypes: ["audio/mpeg", "audio/mp3"],
        signature: .mp3)
    static let m4a = MediaType(
        name: "m4a", aliases: [], contentType: "audio/mp4",
        uploadContentTypes: ["audio/mp4", "audio/x-m4a", "audio/m4a", "audio/aac"],
        signature: .isoMedia(["M4A ", "M4B ", "M4P ", "mp41", "mp42", "isom", "iso2", "iso4", "iso5", "iso6", "dash"]))
    static let wav = MediaType(
        name: "wav", aliases: [], contentType: "audio/wav",
        uploadContentTypes: ["audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"],
        signature: .chunk("RIFF", "WAVE"))
    static let aiff = MediaType(
        name: "aiff", aliases: ["aif"], contentType: "audio/aiff", uploadContentTypes: ["audio/aiff", "audio/x-aiff"],
        signature: .chunk("FORM", "AIFF", "AIFC"))
    static let mp4 = MediaType(
        name: "mp4", aliases: [], contentType: "video/mp4", uploadContentTypes: ["video/mp4"],
        signature: .isoMedia(videoBrands))
    static let m4v = MediaType(
        name: "m4v", aliases: [], contentType: "video/x-m4v", uploadContentTypes: ["video/x-m4v"],
        signature: .isoMedia(videoBrands))
    static let mpeg = MediaType(
        name: "mpeg", aliases: ["mpg"], contentType: "video/mpeg", uploadContentTypes: ["video/mpeg"],
        signature: .prefix([0x00, 0x00, 0x01, 0xBA], [0x00, 0x00, 0x01, 0xB3]))
    static let avi = MediaType(
        name: "avi", aliases: [], contentType: "video/x-msvideo",
        uploadContentTypes: ["video/x-msvideo", "video/avi", "video/msvideo"],
        signature: .chunk("RIFF", "AVI "))

    /// MPEG-4 video brands (QuickTime's `qt  ` is not among them: iOS attaches MPEG-4, not .mov).
    private static let videoBrands: Set<String> = [
        "isom", "iso2", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "M4V ", "M4VH", "M4VP", "dash", "mmp4", "MSNV",
        "3gp4", "3gp5", "3gp6", "3g2a",
    ]

    /// Every type, in the order error messages list them.
    static let all: [MediaType] = [jpg, png, gif, mp3, m4a, wav, aiff, mp4, m4v, mpeg, avi]

    private static let byName: [String: MediaType] = Dictionary(
        uniqueKeysWithValues: all.flatMap { type in ([type.name] + type.aliases).map { ($0, type) } })
    private static let byContentType: [String: MediaType] = Dictionary(
        uniqueKeysWithValues: all.flatMap { type in type.uploadContentTypes.map { ($0, type) } })

    /// Every name an upload may give (canonical names and aliases), sorted.
    static var acceptedNames: [String] { byName.keys.sorted() }

    /// The type called `name` (case-insensitive; aliases included).
    static func named(_ name: String) -> MediaType? { byName[name.lowercased()] }

    /// The type a `Content-Type` header value means (parameters ignored).
    static func forContentType(_ value: String) -> MediaType? {
        let essence = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? value
        return byContentType[essence.filter { $0 != " " && $0 != "\t" }.lowercased()]
    }

    /// The type a stored file's extension names (canonical names only: files are stored under them).
    static func forExtension(_ name: String) -> MediaType? {
        guard let type = byName[name], type.name == name else { return nil }
        return type
    }

    /// The largest upload of any type.
    static let largestMaxBytes = all.map(\.maxBytes).max()!
}

extension MediaType.Signature.Test {
    fileprivate func matches(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        func has(_ expected: [UInt8], at offset: Int) -> Bool {
            guard bytes.count >= offset + expected.count else { return false }
            for index in expected.indices where bytes[offset + index] != expected[index] { return false }
            return true
        }
        switch self {
        case .prefixes(let prefixes):
            return prefixes.contains { has($0, at: 0) }
        case .chunk(let container, let forms):
            return has(container, at: 0) && forms.contains { has($0, at: 8) }
        case .mp3:
            if has(Array("ID3".utf8), at: 0) {
                // ID3v2: major version 2–4, then flags; the audio frames follow the tag.
                return bytes.count >= 10 && (2...4).contains(bytes[3]) && bytes[4] != 0xFF
            }
            // An MPEG audio frame header: 11 sync bits, a version and layer that exist, a usable bitrate and
            // sample rate (ADTS AAC, layer 0, is not MP3).
            guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return false }
            let version = (bytes[1] >> 3) & 0x03
            let layer = (bytes[1] >> 1) & 0x03
            let bitrate = bytes[2] >> 4
            let sampleRate = (bytes[2] >> 2) & 0x03
            return version != 0x01 && layer != 0x00 && bitrate != 0x0F && sampleRate != 0x03
        case .isoMedia(let brands):
            guard has(Array("ftyp".utf8), at: 4) else { return false }
            let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
            guard boxSize >= 16, bytes.count >= 12 else { return false }
            // The major brand (offset 8), then the compatible brands after the minor version (offset 16 on).
            var offsets = [8]
            offsets += stride(from: 16, to: min(boxSize, bytes.count, 16 + 4 * 64) - 3, by: 4)
            return offsets.contains { offset in
                brands.contains(String(decoding: bytes[offset..<offset + 4], as: UTF8.self))
            }
        }
    }
}
