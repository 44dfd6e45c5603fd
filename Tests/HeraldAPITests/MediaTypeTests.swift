import HeraldModel
import HeraldHTTPServer
import Testing

@testable import HeraldAPI

/// The pieces of media hosting that need no server: recognizing files, naming them, reading `Range`.
@Suite("Media types, names and byte ranges")
struct MediaTypeTests {
    @Test func eachTypeRecognizesItsOwnBytesAndNoOneElses() {
        let samples: [(MediaType, [UInt8])] = [
            (.jpg, MediaSamples.jpeg()), (.png, MediaSamples.png), (.gif, MediaSamples.gif),
            (.mp3, MediaSamples.mp3WithTag), (.m4a, MediaSamples.m4a), (.wav, MediaSamples.wav),
            (.aiff, MediaSamples.aiff), (.mp4, MediaSamples.mp4()), (.mpeg, MediaSamples.mpeg),
            (.avi, MediaSamples.avi),
        ]
        for (type, bytes) in samples {
            #expect(type.matches(bytes), "\(type.name) should accept its sample")
            for (other, otherBytes) in samples where other != type {
                // An MPEG-4 file may be both audio and video; everything else is one thing only.
                if Set([type.name, other.name]) == ["m4a", "mp4"] { continue }
                #expect(!type.matches(otherBytes), "\(type.name) accepted a \(other.name)")
            }
        }
        #expect(MediaType.mp3.matches(MediaSamples.mp3Frames))
        #expect(MediaType.m4v.matches(MediaSamples.mp4()))
    }

    @Test func nearMissesAreRejected() {
        #expect(!MediaType.jpg.matches([0xFF, 0xD8]))
        #expect(!MediaType.jpg.matches([]))
        #expect(!MediaType.gif.matches(Array("GIF88a".utf8) + [0, 0, 0, 0]))
        #expect(!MediaType.png.matches(Array(MediaSamples.png.prefix(7))))
        #expect(!MediaType.mp4.matches(MediaSamples.quickTime))
        #expect(!MediaType.m4a.matches(MediaSamples.quickTime))
        // ADTS AAC (layer 0) and a reserved MPEG version are not MP3 frames.
        #expect(!MediaType.mp3.matches([0xFF, 0xF1, 0x50, 0x80]))
        #expect(!MediaType.mp3.matches([0xFF, 0xEB, 0x90, 0x64]))
        #expect(!MediaType.mp3.matches([0xFF, 0xFB, 0xF0, 0x64]))
        // A RIFF that is neither: the form type decides.
        #expect(!MediaType.wav.matches(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8)))
        #expect(!MediaType.avi.matches(MediaSamples.wav))
        #expect(!MediaType.aiff.matches(Array("FORM".utf8) + [0, 0, 0, 0] + Array("8SVX".utf8)))
        #expect(!MediaType.mpeg.matches([0x00, 0x00, 0x01, 0xB9]))
        // An ftyp box claiming fewer bytes than its own header.
        #expect(!MediaType.mp4.matches([0, 0, 0, 8] + Array("ftypisom".utf8) + [0, 0, 0, 0]))
    }

    @Test func typesAreFoundByNameAliasAndContentType() {
        #expect(MediaType.named("JPEG") == .jpg)
        #expect(MediaType.named("aif") == .aiff)
        #expect(MediaType.named("mpg") == .mpeg)
        #expect(MediaType.named("bmp") == nil)
        #expect(MediaType.forContentType("image/png; charset=binary") == .png)
        #expect(MediaType.forContentType("audio/x-m4a") == .m4a)
        #expect(MediaType.forContentType("audio/x-wav") == .wav)
        #expect(MediaType.forContentType("video/avi") == .avi)
        #expect(MediaType.forContentType("application/octet-stream") == nil)
        #expect(MediaType.forExtension("jpeg") == nil)  // stored files only use canonical names
        #expect(MediaType.jpg.maxBytes == 10 << 20)
        #expect(MediaType.mp3.maxBytes == 5 << 20)
        #expect(MediaType.largestMaxBytes == 50 << 20)
        // Every name MediaInput accepts for a push's media can be uploaded.
        #expect(Set(MediaType.acceptedNames) == Set(MediaInput.allTypes))
    }

    @Test func onlyHashNamesWithAKnownExtensionAreFileNames() {
        let sha = String(repeating: "ab", count: 32)
        #expect(MediaLibrary.type(ofName: sha + ".png") == .png)
        #expect(MediaLibrary.type(ofName: sha + ".aiff") == .aiff)
        for name in [
            sha.uppercased() + ".png", sha + ".PNG", sha + ".jpeg", sha + ".exe", sha + ".png.tmp", sha + "png",
            String(sha.dropLast()) + ".png", sha + "0.png", "../" + sha + ".png", sha + "/.png", sha + ".p",
            "", ".", "..", "/etc/passwd", String(repeating: "a", count: 5000),
        ] {
            #expect(MediaLibrary.type(ofName: name) == nil, "\(name)")
        }
    }

    @Test func rangesFollowRFC9110() {
        #expect(ByteRange.parse(nil, size: 1000) == .whole)
        #expect(ByteRange.parse("bytes=0-99", size: 1000) == .partial(0..<100))
        #expect(ByteRange.parse("bytes=900-", size: 1000) == .partial(900..<1000))
        #expect(ByteRange.parse("bytes=-100", size: 1000) == .partial(900..<1000))
        #expect(ByteRange.parse("bytes=-5000", size: 1000) == .partial(0..<1000))
        #expect(ByteRange.parse("bytes=500-5000", size: 1000) == .partial(500..<1000))
        #expect(ByteRange.parse("Bytes = 1-1", size: 1000) == .partial(1..<2))
        #expect(ByteRange.parse("bytes=999-99999999999999999999999", size: 1000) == .partial(999..<1000))
        #expect(ByteRange.parse("bytes=1000-", size: 1000) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=1000-1001", size: 1000) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=99999999999999999999999-", size: 1000) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=-0", size: 1000) == .unsatisfiable)
        // Malformed, other units and multiple ranges: the whole file.
        for value in ["bytes=5-1", "bytes=a-b", "bytes=-", "bytes=", "items=0-1", "bytes 0-1", "bytes=0-1,5-6"] {
            #expect(ByteRange.parse(value, size: 1000) == .whole, "\(value)")
        }
    }

    @Test func httpDatesAreIMFFixdate() {
        #expect(HTTPDate.format(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(secondsSince1970: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }
}
