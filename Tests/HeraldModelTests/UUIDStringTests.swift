import HeraldModel
import Testing

@Suite("UUID strings")
struct UUIDStringTests {
    @Test("128 bits print as a lowercase version-4 UUID, 8-4-4-4-12")
    func formats() {
        #expect(
            UUIDString.format(0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210) == "01234567-89ab-4def-bedc-ba9876543210")
        #expect(UUIDString.format(0, 0) == "00000000-0000-4000-8000-000000000000")
        #expect(UUIDString.format(.max, .max) == "ffffffff-ffff-4fff-bfff-ffffffffffff")
    }

    @Test("random ones are well formed and differ")
    func random() {
        let ids = (0..<100).map { _ in UUIDString.random() }
        #expect(Set(ids).count == 100)
        for id in ids {
            #expect(id.utf8.count == 36)
            #expect(id.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
            #expect(Array(id)[14] == "4")
            #expect("89ab".contains(Array(id)[19]))
        }
    }
}
