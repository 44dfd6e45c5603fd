import Foundation
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// Installs registered with the sandbox key are test devices: pending until an admin approves their code, at most
/// 25 approved per business, pending again after 30 days unused.
@Suite("Device API: sandbox test devices")
struct DeviceSandboxTests {
    @Test func aSandboxInstallIsPendingUntilItsCodeIsApproved() throws {
        let fixture = try ServerFixture()
        let phone = try fixture.install(sandbox: true)
        let standing = try #require(phone.testDevice)
        #expect(standing["status"] == "pending")
        let code = try #require(standing["approval_code"]?.stringValue)
        #expect(code.count == 8)
        let path = "/api/admin/businesses/\(fixture.business.id)/test-devices"

        // Typed in lower case with spaces: the same code.
        let approved = try fixture.herald.admin(
            "POST", path, json: JSON.object([("approval_code", .string(" \(code.lowercased()) "))]).encodedString)
        #expect(approved.status == 200, "\(approved)")
        #expect(approved.value?["status"] == "approved" && approved.value?["install_id"] == .string(phone.installID))
        // The install sees it at its next registration or update.
        let again = try phone.register(apiKey: fixture.business.sandboxAPIKey, signed: true)
        #expect(again.status == 200 && again.value?["test_device"]?["status"] == "approved", "\(again)")
        #expect(again.value?["test_device"]?["approval_code"] == .string(code))
        let update = try phone.call(
            "PUT", "/api/v1/installs/current", json: .object(DeviceTestClient.detailFields()))
        #expect(update.value?["test_device"]?["status"] == "approved")

        // Codes of nobody, of a live install, of another business; malformed codes.
        let live = try fixture.install()
        #expect(
            try live.call("PUT", "/api/v1/installs/current", json: .object(DeviceTestClient.detailFields()))
                .value?["test_device"] == nil)
        let other = try fixture.herald.createBusiness(name: "Taco Co")
        expectError(
            try fixture.herald.admin(
                "POST", "/api/admin/businesses/\(other.id)/test-devices",
                json: JSON.object([("approval_code", .string(code))]).encodedString), 422, ["approval_code"])
        for body in [#"{"approval_code":"ZZZZZZZZ"}"#, #"{"approval_code":"short"}"#, #"{"approval_code":8}"#, "{}"] {
            expectError(try fixture.herald.admin("POST", path, json: body), 422, ["approval_code"])
        }
        expectError(try fixture.herald.admin("POST", path, json: #"{"approval_code":"\#(code)","x":1}"#), 422, ["x"])
        #expect(try fixture.herald.client().request("POST", path, json: "{}").status == 401)
    }

    @Test func atMost25AreApprovedAndOneUnusedFor30DaysIsPendingAgain() throws {
        let clock = TestClock()
        let herald = try LiveHerald(clock: clock.wallClock) { $0.delivery.enabled = false }
        let business = try herald.createBusiness()
        let path = "/api/admin/businesses/\(business.id)/test-devices"
        func approve(_ phone: DeviceTestClient) throws -> TestHTTPClient.Response {
            let code = phone.testDevice?["approval_code"]?.stringValue ?? ""
            return try herald.admin("POST", path, json: JSON.object([("approval_code", .string(code))]).encodedString)
        }
        let phones = try (0..<26).map { index -> DeviceTestClient in
            let phone = herald.deviceClient(installID: "tester-\(index)", clock: clock.wallClock)
            try #require(try phone.register(apiKey: business.sandboxAPIKey).status == 201)
            return phone
        }
        #expect(Set(phones.compactMap { $0.testDevice?["approval_code"]?.stringValue }).count == 26)
        for phone in phones.prefix(25) { #expect(try approve(phone).status == 200) }
        let over = try approve(phones[25])
        expectError(over, 422, ["approval_code"])
        #expect(over.errorFields?["approval_code"]?.first?.contains("25 approved test devices") == true, "\(over)")

        // 20 days on, phones 1–24 are used; phone 0 is not. 31 days on it is pending again, and its place is free.
        clock.advance(by: .seconds(20 * 86_400))
        for phone in phones[1..<25] { #expect(try phone.call("POST", "/api/v1/notifications/pull").status == 200) }
        clock.advance(by: .seconds(11 * 86_400))
        #expect(try approve(phones[25]).status == 200)
        let lapsed = try phones[0].call(
            "PUT", "/api/v1/installs/current", json: .object(DeviceTestClient.detailFields()))
        #expect(lapsed.value?["test_device"]?["status"] == "pending", "\(lapsed)")
        expectError(try approve(phones[0]), 422, ["approval_code"])
        let device = try #require(
            try herald.store.read { try $0.devices.find(businessID: business.id, key: "tester-0") })
        #expect(device.install?.testStatus == "pending")
    }
}
