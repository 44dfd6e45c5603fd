import Foundation
import HeraldModel
import HeraldTesting
import Testing

/// One user cannot make unbounded work: at most `--max-devices-per-user` devices, and the deliveries list in pages.
@Suite("Device cap and paged deliveries")
struct DeviceCapTests {
    @Test(.bug(id: "issue-16-5", "no cap on devices per user; deliveries answered unpaginated"))
    func aUserHasAtMostTheCapOfDevicesAndDeliveriesComeInPages() throws {
        let fixture = try ServerFixture { $0.maxDevicesPerUser = 3 }
        let ann = try fixture.signedUp("ann@example.com", token: randomAPNsToken(), deviceID: "phone-0")
        for index in 1..<6 {
            let app = fixture.app(deviceID: "phone-\(index)")
            #expect(try app.logIn(email: "ann@example.com", token: randomAPNsToken()).status == 200)
        }
        let devices = try fixture.store.read { try $0.devices.all(userID: ann.userID!) }.map(\.deviceKey)
        #expect(devices == ["phone-3", "phone-4", "phone-5"])
        let id = try #require(try fixture.news(to: [ann.userID!]).first)
        let base = "/api/admin/businesses/\(fixture.business.id)/deliveries?notification_id=\(id)"
        let first = try fixture.herald.admin("GET", base + "&limit=2")
        #expect(first.status == 200)
        #expect(first.value?["deliveries"]?.arrayValue?.count == 2)
        let rest = try fixture.herald.admin("GET", base + "&limit=2&offset=2")
        #expect(rest.value?["deliveries"]?.arrayValue?.count == 1)
        expectError(try fixture.herald.admin("GET", base + "&limit=0"), 422, ["limit"])
    }
}
