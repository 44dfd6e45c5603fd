import Foundation
import Testing

@testable import HeraldSDK

/// Files written atomically, nothing read while unavailable, and an unreadable file never read as "nothing".
@Suite struct FileStorageTests {
    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("herald-sdk-\(UUID().uuidString)")
    }

    @Test func writesReadsReplacesAndRemoves() throws {
        let url = Self.directory()
        defer { try? FileManager.default.removeItem(at: url) }
        let storage = try FileStorage(directory: url)
        #expect(try storage.read("install") == nil)
        try storage.write("install", Array("one".utf8))
        #expect(try storage.read("install") == Array("one".utf8))
        try storage.write("install", Array("two, longer".utf8))
        #expect(try storage.read("install") == Array("two, longer".utf8))
        try storage.write("empty", [])
        #expect(try storage.read("empty") == [])
        try storage.remove("install")
        try storage.remove("install")
        #expect(try storage.read("install") == nil)
        // No temporary files are left behind.
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        #expect(names.sorted() == ["empty.json"])
    }

    @Test func keysAreSafeFileNames() throws {
        let url = Self.directory()
        defer { try? FileManager.default.removeItem(at: url) }
        let storage = try FileStorage(directory: url)
        try storage.write("../escape/me", [1])
        #expect(try storage.read("../escape/me") == [1])
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path) == ["___escape_me.json"])
        #expect(
            !FileManager.default.fileExists(
                atPath: url.deletingLastPathComponent().appendingPathComponent("escape").path))
    }

    @Test func nothingIsReadOrWrittenWhileUnavailable() throws {
        let url = Self.directory()
        defer { try? FileManager.default.removeItem(at: url) }
        let available = LockedValue(true)
        let storage = try FileStorage(directory: url) { available.current }
        try storage.write("install", [7])
        available.update { $0 = false }
        #expect(!storage.isAvailable())
        #expect(throws: StorageError(code: .unavailable, detail: "install")) { try storage.read("install") }
        #expect(throws: StorageError.self) { try storage.write("install", [8]) }
        available.update { $0 = true }
        #expect(try storage.read("install") == [7])
    }

    @Test func aFileThatCantBeReadIsUnavailableNotMissing() throws {
        let url = Self.directory()
        defer { try? FileManager.default.removeItem(at: url) }
        let storage = try FileStorage(directory: url)
        // A directory where the file should be: exists, can't be read (as a protected file before first unlock).
        try FileManager.default.createDirectory(at: storage.fileURL("install"), withIntermediateDirectories: true)
        do {
            _ = try storage.read("install")
            Issue.record("read a file that can't be read")
        } catch {
            #expect(error.code == .unavailable)
        }
    }

    @Test func manyWritersNeverTearAFile() async throws {
        let url = Self.directory()
        defer { try? FileManager.default.removeItem(at: url) }
        let storage = try FileStorage(directory: url)
        let payloads = (0..<8).map { writer in [UInt8](repeating: UInt8(writer), count: 64 * 1024) }
        await withTaskGroup(of: Void.self) { group in
            for payload in payloads {
                group.addTask {
                    for _ in 0..<10 { try? storage.write("blob", payload) }
                }
            }
            group.addTask {
                for _ in 0..<50 {
                    if let bytes = try? storage.read("blob") {
                        #expect(bytes.count == 64 * 1024 && Set(bytes).count == 1, "a torn read")
                    }
                }
            }
        }
        let final = try #require(try storage.read("blob"))
        #expect(payloads.contains(final))
    }
}
