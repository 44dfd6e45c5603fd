import Foundation
import HeraldCrypto
import HeraldDelivery
import HeraldModel
import HeraldAPI
import HeraldStore
import HeraldTesting
import Testing

/// Every loyalty event from the POS (or admin) call to the push Herald hands to Apple and Google — recorded
/// in-process, rendered by the same payload code the providers send — and the callbacks the app then makes. The
/// wire itself (HTTP/2, TLS, tokens, headers) is `APNsDeliveryTests` and `FCMDeliveryTests`' business.
@Suite("Loyalty events to the phone")
struct LoyaltyPushTests {
    let apns = RecordingPushProvider(platform: .apns)
    let fcm = RecordingPushProvider(platform: .fcm)
    let herald: LiveHerald
    let business: LiveHerald.BusinessKeys
    let location: Int64
    let ann: MobileTestClient  // iPhone
    let bob: MobileTestClient  // Android

    init() throws {
        let providers: [any PushProvider] = [apns, fcm]
        herald = try LiveHerald(configure: { $0.schedulerInterval = .milliseconds(200) }, providers: { _ in providers })
        business = try herald.createBusiness(name: "Burger Co")
        location = try herald.createLocation(business)
        ann = try herald.signUpSettled(business, email: "ann@example.com", firstName: "Ann", token: randomAPNsToken())
        bob = try herald.signUpSettled(
            business, email: "bob@example.com", firstName: "Bob", token: randomFCMToken(), android: true)
    }

    // MARK: - Helpers

    func checkin(
        _ app: MobileTestClient, points: Int64 = 12, source: String = "qr", transactionID: String? = nil,
        extra: [(key: String, value: JSON)] = []
    ) throws -> TestHTTPClient.Response {
        var body: [(key: String, value: JSON)] = [
            ("user_id", .int(app.userID!)), ("location_id", .int(location)), ("points", .int(points)),
            ("source", .string(source)),
        ]
        if let transactionID { body.append(("transaction_id", .string(transactionID))) }
        return try herald.pos(business, "POST", "/api/pos/checkins", json: .object(body + extra))
    }

    /// `PUT …/settings` of the business with `json`.
    func putSettings(_ json: String) throws -> TestHTTPClient.Response {
        try herald.admin("PUT", "/api/admin/businesses/\(business.id)/settings", json: json)
    }

    /// Creates an offer of the business from `json`; its id.
    func createOffer(_ json: String) throws -> Int64 {
        let created = try herald.admin("POST", "/api/admin/businesses/\(business.id)/offers", json: json)
        #expect(created.status == 201, "\(created)")
        return try #require(value(created, "id"))
    }

    /// The entries of the point conversions a check-in answer names.
    func conversions(_ response: TestHTTPClient.Response) throws -> [Int64] {
        try #require((response.json as? [String: Any])?["conversion_notification_ids"] as? [Int]).map(Int64.init)
    }

    func value(_ response: TestHTTPClient.Response, _ key: String) -> Int64? {
        ((response.json as? [String: Any])?[key] as? Int).map(Int64.init)
    }

    /// The push handed to Apple for notification `n`: its `payload` as Apple receives it, whether it goes as a
    /// `background` push, and its `collapse_id`.
    func apnsRequest(_ n: Int64) throws -> JSON {
        let delivery = try #require(
            try herald.waitForDeliveries(of: n).first { $0.platform == .apns }, "no APNs delivery for \(n)")
        #expect(delivery.status == .delivered, "\(delivery)")
        let push = try #require(apns.pushes.last { $0.deliveryID == delivery.id })
        return [
            "payload": push.payload, "background": .bool(push.content.isBackground),
            "collapse_id": JSON(push.collapseID),
        ]
    }

    /// The FCM message sent for notification `n`, as it went out.
    func fcmMessage(_ n: Int64) throws -> JSON {
        let delivery = try #require(
            try herald.waitForDeliveries(of: n).first { $0.platform == .fcm }, "no FCM delivery for \(n)")
        #expect(delivery.status == .delivered, "\(delivery)")
        let push = try #require(fcm.pushes.last { $0.deliveryID == delivery.id })
        return try #require(push.fcmMessage["message"])
    }

    // MARK: - Check-ins

    @Test func aCheckinReachesBothPlatformsAsTheSeedShowsIt() throws {
        let response = try checkin(ann, points: 12, transactionID: "POS_6118542_1487057215")
        #expect(response.status == 201, "\(response)")
        let checkinID = try #require(value(response, "checkin_id"))
        let n = try #require(value(response, "notification_id"))
        let request = try apnsRequest(n)
        let payload = try #require(request["payload"])
        #expect(
            payload["aps"]?["alert"] == [
                "title": "Points Earned", "subtitle": "You've earned points!",
                "body": "You've got 12 points from your last visit at Brooklyn Location!",
            ])
        #expect(payload["aps"]?["sound"] == "default")
        let unread = Int64(try herald.application.store.read { try $0.inbox.unreadCount(userID: ann.userID!) })
        #expect(payload["aps"]?["badge"]?.int64Value == unread)
        #expect(payload["f"] == 1)
        #expect(payload["i"]?.int64Value == checkinID)
        #expect(payload["n"]?.int64Value == n)
        #expect(payload["p"] == 12)
        #expect(payload["t"] == "POS_6118542_1487057215")
        #expect(payload["u"]?.int64Value == ann.userID)
        #expect(Set(payload.objectValue!.map(\.key)) == ["aps", "f", "i", "n", "p", "t", "u"])

        // The app follows `t` to Transaction Details.
        let details = try ann.call(
            "GET", "/api2/mobile/checkins/transactions?client=\(business.client)&transaction_id=POS_6118542_1487057215")
        #expect(details.status == 200, "\(details)")
        let body = try JSON.parse(Array(details.body))
        #expect(body["checkin"]?["checkin_id"]?.int64Value == checkinID)
        #expect(body["checkin"]?["points_earned"] == 12)
        #expect(body["checkin"]?["location_name"] == "Brooklyn Location")
        #expect(body["checkin"]?["store_number"] == "0042")
        #expect(body["checkin"]?["first_checkin"] == true)
        #expect(body["checkin"]?["current_membership_level"] == "Member")
        #expect(body["redemptions"] == [])
        // Another user can't read it.
        #expect(
            try bob.call(
                "GET",
                "/api2/mobile/checkins/transactions?client=\(business.client)&transaction_id=POS_6118542_1487057215"
            ).status == 404)

        // Android: the same keys as strings in data.
        let android = try checkin(bob, points: 7)
        let message = try fcmMessage(try #require(value(android, "notification_id")))
        #expect(message["notification"]?["title"] == "Points Earned")
        #expect(message["notification"]?["body"] == "You've got 7 points from your last visit at Brooklyn Location!")
        #expect(message["data"]?["p"] == "7")
        #expect(message["data"]?["f"] == "1")
        #expect(message["data"]?["i"]?.stringValue == String(value(android, "checkin_id")!))
        #expect(message["data"]?["t"]?.stringValue?.hasPrefix("POS_\(bob.userID!)_") == true)
        #expect(message["data"]?["u"]?.stringValue == String(bob.userID!))
    }

    @Test func aRepeatedTransactionIsOneCheckinAndOneNotification() throws {
        let first = try checkin(ann, points: 5, transactionID: "TX-1")
        let again = try checkin(ann, points: 5, transactionID: "TX-1")
        #expect(first.status == 201)
        #expect(again.status == 200)
        #expect(value(first, "checkin_id") == value(again, "checkin_id"))
        #expect(value(first, "notification_id") == value(again, "notification_id"))
        #expect(
            try herald.application.store.read { try $0.users.find(businessID: business.id, id: ann.userID!) }?.points
                == 5)
        let entries = try herald.application.store.read { try $0.inbox.page(userID: ann.userID!, limit: 50, offset: 0) }
            .filter {
                $0.event == "checkin"
            }
        #expect(entries.count == 1)
        #expect(value(try checkin(ann, points: 1), "checkin_id") != value(first, "checkin_id"))
    }

    @Test func pendingScannerRetryAndVoidEvents() throws {
        let scanner = try checkin(ann, points: 3, source: "pos_scanner")
        let scanned = try apnsRequest(value(scanner, "notification_id")!)
        #expect(
            try herald.application.store.read {
                try $0.inbox.find(userID: ann.userID!, id: value(scanner, "notification_id")!)
            }?
            .event == "pos_scanner_checkin")
        #expect(scanned["payload"]?["p"] == 3)

        let pending = try checkin(ann, points: 40, source: "online_ordering", extra: [("status", "pending")])
        #expect(pending.status == 201)
        let pendingPush = try apnsRequest(value(pending, "notification_id")!)
        #expect(pendingPush["payload"]?["aps"]?["alert"]?["title"] == "Check-in pending")
        let id = value(pending, "checkin_id")!
        let failed = try herald.pos(business, "POST", "/api/pos/checkins/\(id)/retry", json: ["outcome": "fail"])
        #expect(failed.status == 200, "\(failed)")
        #expect(
            try apnsRequest(value(failed, "notification_id")!)["payload"]?["aps"]?["alert"]?["title"]
                == "Check-in failed")
        let succeeded = try herald.pos(business, "POST", "/api/pos/checkins/\(id)/retry", json: ["outcome": "success"])
        #expect(succeeded.status == 200)
        #expect(value(succeeded, "total_points") == 43)
        #expect(
            try apnsRequest(value(succeeded, "notification_id")!)["payload"]?["aps"]?["alert"]?["subtitle"]
                == "Your check-in went through")
        let voided = try herald.pos(business, "POST", "/api/pos/checkins/\(id)/void", json: [:])
        #expect(voided.status == 200)
        #expect(value(voided, "total_points") == 3)
        #expect(
            try apnsRequest(value(voided, "notification_id")!)["payload"]?["aps"]?["alert"]?["title"]
                == "Check-in voided")
        // The POS voids again (its answer lost): the same answer, no second notification.
        let again = try herald.pos(business, "POST", "/api/pos/checkins/\(id)/void", json: [:])
        #expect(again.status == 200 && value(again, "notification_id") == value(voided, "notification_id"), "\(again)")
        #expect(value(again, "total_points") == 3)
        // A check-in approved when it was made was never pending: "retrying" it is refused, not a repeat.
        let direct = try checkin(ann, points: 2, transactionID: "TX-DIRECT")
        let notRetried = try herald.pos(
            business, "POST", "/api/pos/checkins/\(value(direct, "checkin_id")!)/retry", json: ["outcome": "success"])
        #expect(notRetried.status == 422, "\(notRetried)")
        // A voided check-in can't go through any more.
        let revived = try herald.pos(business, "POST", "/api/pos/checkins/\(id)/retry", json: ["outcome": "success"])
        #expect(revived.status == 422, "\(revived)")
    }

    @Test func everyCheckinEventReachesAnAndroidPhoneWithTheSameKeysAsStrings() throws {
        // Bob's phone is an Android: the events Ann's iPhone is tested with above, as FCM data.
        let scanner = try checkin(bob, points: 3, source: "pos_scanner", transactionID: "TX-A1")
        let scanned = try fcmMessage(value(scanner, "notification_id")!)
        #expect(scanned["data"]?["p"] == "3")
        #expect(scanned["data"]?["t"] == "TX-A1")
        #expect(scanned["data"]?["i"]?.stringValue == value(scanner, "checkin_id").map(String.init))
        #expect(scanned["data"]?["u"]?.stringValue == String(bob.userID!))

        let pending = try checkin(bob, points: 40, source: "online_ordering", extra: [("status", "pending")])
        #expect(try fcmMessage(value(pending, "notification_id")!)["notification"]?["title"] == "Check-in pending")
        let id = value(pending, "checkin_id")!
        let failed = try herald.pos(business, "POST", "/api/pos/checkins/\(id)/retry", json: ["outcome": "fail"])
        #expect(try fcmMessage(value(failed, "notification_id")!)["notification"]?["title"] == "Check-in failed")
        let succeeded = try herald.pos(business, "POST", "/api/pos/checkins/\(id)/retry", json: ["outcome": "success"])
        let success = try fcmMessage(value(succeeded, "notification_id")!)
        #expect(success["data"]?["p"] == "40")
        #expect(success["data"]?["subtitle"] == "Your check-in went through")
        let voided = try herald.pos(business, "POST", "/api/pos/checkins/\(id)/void", json: [:])
        #expect(try fcmMessage(value(voided, "notification_id")!)["notification"]?["title"] == "Check-in voided")
    }

    @Test func theMembershipLevelsAreTheBusinesssAndTransactionDetailsSaysWhenOneWasReached() throws {
        let levels = #"{"membership_levels":[{"name":"Bun","from_points":0},{"name":"Patty","from_points":10}]}"#
        let settings = try putSettings(levels)
        #expect(settings.status == 200, "\(settings)")
        #expect(settings.text.contains(#""name":"Patty""#))
        _ = try checkin(ann, points: 12, transactionID: "TX-LEVEL")
        let details = try JSON.parse(
            try ann.call("GET", "/api2/mobile/checkins/transactions?client=\(business.client)&transaction_id=TX-LEVEL")
                .body)
        #expect(details["checkin"]?["current_membership_level"] == "Patty")
        #expect(details["checkin"]?["previous_membership_level"] == "Bun", "this check-in reached Patty")

        for bad in [
            #"{"membership_levels":[]}"#, #"{"membership_levels":[{"name":"Gold","from_points":100}]}"#,
            #"{"membership_levels":[{"name":"A","from_points":0},{"name":"B","from_points":0}]}"#,
            #"{"membership_levels":[{"name":"","from_points":0}]}"#, #"{"membership_levels":"Gold"}"#,
        ] {
            let refused = try putSettings(bad)
            #expect(refused.status == 422 && refused.text.contains("membership_levels"), "\(bad): \(refused)")
        }
    }

    @Test func pointsPastTheThresholdBecomeBankedCurrencyOnAndroid() throws {
        let settings = try putSettings(
            #"{"conversion_threshold":20,"conversion_kind":"currency","conversion_currency_amount":5}"#)
        #expect(settings.status == 200, "\(settings)")
        let response = try checkin(bob, points: 45)
        let converted = try conversions(response)
        #expect(converted.count == 2, "45 points cross the threshold of 20 twice")
        let message = try fcmMessage(converted[0])
        #expect(message["notification"]?["title"] == "Reward unlocked")
        #expect(message["notification"]?["body"] == "You've converted 20 points into 5 of banked rewards!")
        #expect(message["data"]?["u"]?.stringValue == String(bob.userID!))
        #expect(value(response, "total_points") == 5)
    }

    @Test func pointsPastTheThresholdBecomeAReward() throws {
        let offerID = try createOffer(#"{"name":"Free Fries","description":"Any size","discount":3,"valid_days":30}"#)
        let settings = try putSettings(
            #"{"conversion_threshold":20,"conversion_kind":"reward","conversion_offer_id":\#(offerID)}"#)
        #expect(settings.status == 200, "\(settings)")
        let response = try checkin(ann, points: 25)
        let converted = try conversions(response)
        #expect(converted.count == 1)
        let push = try apnsRequest(converted[0])
        #expect(push["payload"]?["aps"]?["alert"]?["body"] == "You've converted 20 points into Free Fries!")
        #expect(push["payload"]?["r"] != nil)
        #expect(value(response, "total_points") == 5)
        let offers = try JSON.parse(try ann.call("GET", "/api2/mobile/offers?client=\(business.client)").body)
        #expect(offers["rewards"]?.arrayValue?.count == 1)
    }

    @Test func aWelcomeOfferSetJustNowIsGrantedAtTheNextSignUp() throws {
        // Ann and Bob signed up already: this node has the business in its recent reads.
        let offerID = try createOffer(#"{"name":"Welcome Shake","description":"On us","discount":4,"valid_days":30}"#)
        let settings = try putSettings(#"{"welcome_offer_id":\#(offerID)}"#)
        #expect(settings.status == 200, "\(settings)")
        // Carol's phone is an Android: the welcome offer reaches it as FCM data, with the reward's `r`.
        let carol = try herald.signUpSettled(
            business, email: "carol@example.com", firstName: "Carol", token: randomFCMToken(), android: true)
        let offers = try JSON.parse(try carol.call("GET", "/api2/mobile/offers?client=\(business.client)").body)
        let reward = try #require(offers["rewards"]?.arrayValue?.first, "\(offers)")
        let entry = try #require(
            try herald.application.store.read { try $0.inbox.page(userID: carol.userID!, limit: 10, offset: 0) }.first {
                $0.event == "welcome_offer"
            })
        let message = try fcmMessage(entry.id)
        #expect(message["data"]?["r"]?.stringValue == reward["reward_id"]?.int64Value.map(String.init))
        #expect(message["data"]?["u"]?.stringValue == String(carol.userID!))
        #expect(message["notification"]?["body"]?.stringValue?.contains("Welcome Shake") == true, "\(message)")
    }

    // MARK: - Bad input

    @Test func badPOSInputGetsClearAnswers() throws {
        func post(_ json: JSON, key: String? = nil) throws -> TestHTTPClient.Response {
            try herald.client().request(
                "POST", "/api/pos/checkins", headers: [("Authorization", "Bearer \(key ?? business.posKey)")],
                json: json.encodedString)
        }
        let base: [(key: String, value: JSON)] = [
            ("user_id", .int(ann.userID!)), ("location_id", .int(location)), ("points", 5),
        ]
        #expect(try post(.object(base), key: "hpos_wrong").status == 401)
        #expect(
            try herald.client().request("POST", "/api/pos/checkins", json: JSON.object(base).encodedString).status
                == 401)
        #expect(try post(["user_id": 999_999, "location_id": .int(location), "points": 5]).status == 404)
        #expect(try post(["email": "nobody@example.com", "location_id": .int(location), "points": 5]).status == 404)
        #expect(try post(["user_id": .int(ann.userID!), "location_id": 999_999, "points": 5]).status == 404)
        #expect(try post(.object(base.filter { $0.key != "points" } + [("points", -3)])).status == 422)
        #expect(try post(.object(base.filter { $0.key != "points" } + [("points", 10_000_000)])).status == 422)
        #expect(try post(.object(base.filter { $0.key != "points" } + [("points", "lots")])).status == 422)
        #expect(try post(.object(base + [("source", "carrier_pigeon")])).status == 422)
        let malformed = try herald.client().request(
            "POST", "/api/pos/checkins", headers: [("Authorization", "Bearer \(business.posKey)")],
            body: Array(#"{"user_id":"#.utf8))
        #expect(malformed.status == 400)
        #expect(malformed.text.contains("errors"))
        // Another business's location or user is unknown here.
        let other = try herald.createBusiness(name: "Other")
        let theirs = try herald.createLocation(other)
        #expect(
            try post(.object(base.filter { $0.key != "location_id" } + [("location_id", .int(theirs))])).status == 404)
        #expect(
            try herald.pos(
                other, "POST", "/api/pos/checkins",
                json: .object(base.filter { $0.key != "location_id" } + [("location_id", .int(theirs))])
            ).status == 404)
        let gift = try herald.pos(
            business, "POST", "/api/webhooks/gift_cards",
            json: ["uuid": "x", "user_id": .int(ann.userID!), "balance": -1])
        #expect(gift.status == 422)
    }
}
