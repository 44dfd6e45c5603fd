import Foundation
import HeraldCrypto
import HeraldDelivery
import HeraldModel
import HeraldAPI
import HeraldStore
import HeraldTesting
import Testing

/// Offers, redemptions, gift cards and surveys to the phone.
extension LoyaltyPushTests {
    // MARK: - Offers and redemptions

    @Test func anOfferIsGrantedReadRedeemedAndHonouredOnce() throws {
        // A picture the offer-details screen can't load is refused when the offer is made.
        for image in ["http://", "http://a b", "cdn.example.com/fries.png"] {
            let refused = try herald.admin(
                "POST", "/api/admin/businesses/\(business.id)/offers",
                json: JSON.object([("name", "Fries"), ("image_url", .string(image))]).encodedString)
            #expect(refused.status == 422 && refused.text.contains("image_url"), "\(image): \(refused)")
        }
        // Nor can an expired one be granted: the grant would be announced and never listed.
        let expired = try createOffer(#"{"name":"Gone","expires_at":"2020-01-01T00:00:00Z"}"#)
        let late = try herald.admin(
            "POST", "/api/admin/businesses/\(business.id)/offers/\(expired)/grant",
            json: #"{"user_ids":[\#(ann.userID!)]}"#)
        #expect(late.status == 422, "\(late)")
        let offerID = try createOffer(
            #"{"name":"Free Fries","description":"Any size, any day","image_url":"https://cdn.example.com/fries.png","discount":3,"valid_days":30,"media":{"url":"https://cdn.example.com/fries.png","type":"png"}}"#
        )
        let granted = try herald.admin(
            "POST", "/api/admin/businesses/\(business.id)/offers/\(offerID)/grant",
            json: #"{"user_ids":[\#(ann.userID!),\#(bob.userID!)]}"#)
        #expect(granted.status == 202, "\(granted)")
        let notificationIDs = try #require((granted.json as? [String: Any])?["notification_ids"] as? [Int])
        let apns = try apnsRequest(Int64(notificationIDs[0]))
        #expect(apns["payload"]?["aps"]?["alert"]?["title"] == "A new offer for you")
        #expect(apns["payload"]?["aps"]?["mutable-content"] == 1)
        #expect(apns["payload"]?["ab"]?["att"]?["url"] == "https://cdn.example.com/fries.png")
        let rewardID = try #require(apns["payload"]?["r"]?.int64Value)
        let fcm = try fcmMessage(Int64(notificationIDs[1]))
        #expect(fcm["notification"]?["image"] == "https://cdn.example.com/fries.png")

        // The offer-details screen.
        let offers = try JSON.parse(try ann.call("GET", "/api2/mobile/offers?client=\(business.client)").body)
        let reward = try #require(offers["rewards"]?.arrayValue?.first)
        #expect(reward["reward_id"]?.int64Value == rewardID)
        #expect(reward["image_url"] == "https://cdn.example.com/fries.png")
        #expect(reward["description"] == "Any size, any day")
        #expect(reward["expires_at"]?.stringValue != nil)
        #expect(reward["media"] == ["url": "https://cdn.example.com/fries.png", "type": "png"])
        #expect(reward["available_from"] == .null && reward["available_until"] == .null, "no window: always")

        // Reading it clears it from the badge.
        let before = try herald.application.store.read { try $0.inbox.unreadCount(userID: ann.userID!) }
        let read = try ann.call(
            "PUT", "/api2/mobile/offers/mark_read",
            json: [("event_type", "read_through_app"), ("rewards", .string(String(rewardID)))])
        #expect(read.status == 200)
        #expect(try JSON.parse(read.body)["rewards"] == [.int(rewardID)])
        #expect(try JSON.parse(read.body)["badge"]?.int64Value == Int64(before - 1))

        // Redeem: a code for the POS, honoured once, then the rd push.
        let redeemed = try ann.call("POST", "/api2/mobile/redemptions", json: [("reward_id", .int(rewardID))])
        #expect(redeemed.status == 201, "\(redeemed)")
        let code = try #require(try JSON.parse(redeemed.body)["redemption_code"]?.stringValue)
        #expect(try bob.call("POST", "/api2/mobile/redemptions", json: [("reward_id", .int(rewardID))]).status == 404)
        let honoured = try herald.pos(
            business, "POST", "/api/pos/redemptions",
            json: ["redemption_code": .string(code), "location_id": .int(location), "transaction_id": "TX-R"])
        #expect(honoured.status == 201, "\(honoured)")
        let push = try apnsRequest(value(honoured, "notification_id")!)
        #expect(push["payload"]?["rd"] == 3)
        #expect(push["payload"]?["u"]?.int64Value == ann.userID)
        #expect(push["payload"]?["aps"]?["alert"]?["title"] == "You've got a discount")
        let twice = try herald.pos(
            business, "POST", "/api/pos/redemptions",
            json: ["redemption_code": .string(code), "location_id": .int(location)])
        #expect(twice.status == 422, "\(twice)")
        let offersAfter = try JSON.parse(try ann.call("GET", "/api2/mobile/offers?client=\(business.client)").body)
        #expect(offersAfter["rewards"] == [])
    }

    @Test func aDirectRedemptionSendsRd() throws {
        let response = try herald.pos(
            business, "POST", "/api/pos/redemptions",
            json: [
                "user_id": .int(bob.userID!), "location_id": .int(location), "discount": 2.5, "transaction_id": "TX-D",
            ])
        #expect(response.status == 201, "\(response)")
        let message = try fcmMessage(value(response, "notification_id")!)
        #expect(message["data"]?["rd"] == "2.5")
        #expect(message["notification"]?["title"] == "You've got a discount")
        // The POS retries (its answer lost on the way): the same redemption, 200, and no second push.
        let retried = try herald.pos(
            business, "POST", "/api/pos/redemptions",
            json: [
                "user_id": .int(bob.userID!), "location_id": .int(location), "discount": 2.5, "transaction_id": "TX-D",
            ])
        #expect(retried.status == 200, "\(retried)")
        #expect(value(retried, "redemption_id") == value(response, "redemption_id"))
        #expect(value(retried, "notification_id") == value(response, "notification_id"))
        let rdEntries = try herald.application.store.read {
            try $0.inbox.page(userID: bob.userID!, limit: 50, offset: 0)
        }.filter {
            $0.event == "redemption"
        }
        #expect(rdEntries.count == 1)
        // The ticket is Bob's: Ann can't redeem on it.
        let foreign = try herald.pos(
            business, "POST", "/api/pos/redemptions",
            json: [
                "user_id": .int(ann.userID!), "location_id": .int(location), "discount": 2.5, "transaction_id": "TX-D",
            ])
        #expect(foreign.status == 422 && foreign.text.contains("another user's transaction"), "\(foreign)")
    }

    @Test func anOfferAboutToExpireIsRemindedOnce() throws {
        _ = try putSettings(#"{"offer_reminder_lead_hours":1}"#)
        let offerID = try createOffer(#"{"name":"Last Call Shake","discount":2,"valid_days":0.01}"#)
        _ = try herald.admin(
            "POST", "/api/admin/businesses/\(business.id)/offers/\(offerID)/grant",
            json: #"{"user_ids":[\#(ann.userID!)]}"#)
        let reminders = try CommitWaiter(herald.application.store).value(timeout: .seconds(10), until: { !$0.isEmpty })
        {
            try $0.read { try $0.inbox.page(userID: ann.userID!, limit: 50, offset: 0) }.filter {
                $0.event == "offer_expiry"
            }
        }
        #expect(reminders.count == 1)
        let push = try apnsRequest(try #require(reminders.first).id)
        #expect(push["payload"]?["aps"]?["alert"]?["title"] == "Your offer expires soon")
        #expect(
            push["payload"]?["aps"]?["alert"]?["body"]?.stringValue?.hasPrefix("Last Call Shake expires on ") == true)
        // Three more passes, run here (the scheduler's own passes may run between them): none reminds again.
        for _ in 0..<3 { #expect(herald.application.domain.scheduler.runOnce() == 0) }
        #expect(
            try herald.application.store.read { try $0.inbox.page(userID: ann.userID!, limit: 50, offset: 0) }.filter {
                $0.event == "offer_expiry"
            }.count == 1)
    }

    // MARK: - Gift cards and surveys

    @Test func aGiftCardUpdateIsASilentPushThenABalanceCall() throws {
        let response = try herald.pos(
            business, "POST", "/api/webhooks/gift_cards",
            json: ["uuid": "GC-3122", "user_id": .int(ann.userID!), "balance": 25.5])
        #expect(response.status == 202, "\(response)")
        let request = try apnsRequest(value(response, "notification_id")!)
        #expect(request["background"] == true)
        // A newer balance replaces one still held for an offline phone.
        #expect(request["collapse_id"] == .string("gc-\(value(response, "gift_card_id")!)"))
        #expect(request["payload"] == ["aps": ["content-available": 1], "gc": .int(value(response, "gift_card_id")!)])
        let balance = try ann.call("GET", "/api2/mobile/gift_cards/GC-3122/balance?client=\(business.client)")
        #expect(balance.status == 200)
        #expect(try JSON.parse(balance.body)["balance"] == 25.5)
        #expect(try bob.call("GET", "/api2/mobile/gift_cards/GC-3122/balance?client=\(business.client)").status == 404)
        // The push's `gc` names the card too: what an app that only has the payload calls with.
        let gc = try #require(request["payload"]?["gc"]?.int64Value)
        let byID = try ann.call("GET", "/api2/mobile/gift_cards/\(gc)/balance?client=\(business.client)")
        #expect(byID.status == 200, "\(byID)")
        #expect(try JSON.parse(byID.body)["uuid"] == "GC-3122")
        #expect(try bob.call("GET", "/api2/mobile/gift_cards/\(gc)/balance?client=\(business.client)").status == 404)

        let android = try herald.pos(
            business, "POST", "/api/webhooks/gift_cards",
            json: ["uuid": "GC-9", "user_id": .int(bob.userID!), "balance": 10])
        let message = try fcmMessage(value(android, "notification_id")!)
        #expect(message["notification"] == nil)
        #expect(message["android"]?["priority"] == "normal")
        #expect(message["android"]?["collapse_key"] == .string("gc-\(value(android, "gift_card_id")!)"))
        // The silent push is not an inbox entry.
        let inbox = try JSON.parse(try bob.notifications().body)
        #expect(inbox.arrayValue?.contains { $0["event"] == "gift_card" } == false)
    }

    @Test func aSurveyIsSentFetchedAndAnsweredThroughTheSharedValidator() throws {
        let definition = #"""
            {"title":"Your visit","questions":[
              {"id":"q_choice","text":"How did you order?","type":"single_choice","required":true,"choices":[{"id":"app","text":"App"},{"id":"counter","text":"Counter"}]},
              {"id":"q_multi","text":"What did you eat?","type":"multiple_choice","choices":[{"id":"burger","text":"Burger"},{"id":"fries","text":"Fries"}]},
              {"id":"q_rating","text":"Rate us","type":"rating","required":true},
              {"id":"q_bool","text":"Will you come back?","type":"boolean","required":true},
              {"id":"q_number","text":"How many people?","type":"number"},
              {"id":"q_slider","text":"How likely to recommend?","type":"slider"},
              {"id":"q_open","text":"Anything else?","type":"open_ended"}]}
            """#
        let created = try herald.admin("POST", "/api/admin/businesses/\(business.id)/surveys", json: definition)
        #expect(created.status == 201, "\(created)")
        let surveyID = try #require(value(created, "id"))
        // Without a location_id each user is asked about their latest visit: none yet, so the business itself…
        func send(_ json: String) throws -> (push: JSON, userSurveyIDs: [Int]) {
            let sent = try herald.admin(
                "POST", "/api/admin/businesses/\(business.id)/surveys/\(surveyID)/send", json: json)
            #expect(sent.status == 202, "\(sent)")
            let notificationIDs = try #require((sent.json as? [String: Any])?["notification_ids"] as? [Int])
            return (
                try apnsRequest(Int64(notificationIDs[0])),
                try #require((sent.json as? [String: Any])?["user_survey_ids"] as? [Int])
            )
        }
        func expectAbout(_ push: JSON, _ place: String, points: Int, first: Int) {
            let payload = push["payload"]
            #expect(
                payload?["aps"]?["alert"]?["body"]
                    == .string("Please share your experience from your last visit at \(place)."))
            #expect(payload?["p"] == .int(Int64(points)) && payload?["f"] == .int(Int64(first)), "\(push)")
        }
        expectAbout(try send(#"{"user_ids":[\#(ann.userID!)]}"#).push, "Burger Co", points: 0, first: 0)
        // …then, after a check-in, that visit: its location, its points (`p`) and whether it was the first (`f`).
        #expect(try checkin(ann, points: 7).status == 201)
        let visited = try send(#"{"user_ids":[\#(ann.userID!)]}"#)
        expectAbout(visited.push, "Brooklyn Location", points: 7, first: 1)
        let visit = try ann.call(
            "GET", "/api2/mobile/survey_details?client=\(business.client)&user_survey_id=\(visited.userSurveyIDs[0])")
        #expect(try JSON.parse(visit.body)["location_id"]?.int64Value == location, "\(visit)")
        let sent = try herald.admin(
            "POST", "/api/admin/businesses/\(business.id)/surveys/\(surveyID)/send",
            json: #"{"user_ids":[\#(ann.userID!),\#(bob.userID!)],"location_id":\#(location)}"#)
        #expect(sent.status == 202, "\(sent)")
        let notificationIDs = try #require((sent.json as? [String: Any])?["notification_ids"] as? [Int])
        let userSurveyIDs = try #require((sent.json as? [String: Any])?["user_survey_ids"] as? [Int])
        let push = try apnsRequest(Int64(notificationIDs[0]))
        #expect(push["payload"]?["s"]?.int64Value == Int64(userSurveyIDs[0]))
        #expect(
            push["payload"]?["aps"]?["alert"] == [
                "title": "How was your visit", "subtitle": "Share your experience!",
                "body": "Please share your experience from your last visit at Brooklyn Location.",
            ])
        let message = try fcmMessage(Int64(notificationIDs[1]))
        #expect(message["data"]?["s"]?.stringValue == String(userSurveyIDs[1]))

        let s = try #require(push["payload"]?["s"]?.int64Value)
        let details = try ann.call("GET", "/api2/mobile/survey_details?client=\(business.client)&user_survey_id=\(s)")
        #expect(details.status == 200, "\(details)")
        let survey = try JSON.parse(details.body)
        #expect(survey["id"]?.int64Value == s)
        let url = try #require(survey["survey_url"]?.stringValue)
        #expect(
            url.hasPrefix("\(herald.application.publicBaseURL)/surveys/\(s)?t="), "Herald's own page, for a web view")
        #expect(survey["questions"]?.arrayValue?.count == 7)
        #expect(
            try bob.call("GET", "/api2/mobile/survey_details?client=\(business.client)&user_survey_id=\(s)").status
                == 404)

        let bad = try ann.call(
            "POST", "/api2/mobile/surveys/\(s)/answers",
            json: [
                (
                    "answers",
                    [
                        "q_choice": "phone", "q_multi": ["burger", "burger"], "q_rating": 6, "q_slider": 11,
                        "q_open": .string(String(repeating: "x", count: 2001)),
                    ]
                )
            ])
        #expect(bad.status == 422)
        let errors = try #require(try JSON.parse(bad.body)["errors"]?.objectValue)
        #expect(Set(errors.map(\.key)) == ["q_choice", "q_multi", "q_rating", "q_bool", "q_slider", "q_open"])

        let good = try ann.call(
            "POST", "/api2/mobile/surveys/\(s)/answers",
            json: [
                (
                    "answers",
                    [
                        "q_choice": "app", "q_multi": ["burger", "fries"], "q_rating": 5, "q_bool": true, "q_number": 3,
                        "q_slider": 9, "q_open": "Great fries 🍟",
                    ]
                )
            ])
        #expect(good.status == 200, "\(good)")
        let again = try ann.call(
            "POST", "/api2/mobile/surveys/\(s)/answers",
            json: [("answers", ["q_choice": "app", "q_rating": 4, "q_bool": false])])
        #expect(again.status == 422)
    }

    @Test("a hosted survey's survey_url is a form a web view shows, checked by the same validator")
    func aSurveyPageIsAnsweredInAWebView() throws {
        let created = try herald.admin(
            "POST", "/api/admin/businesses/\(business.id)/surveys",
            json: #"""
                {"title":"Your <visit>","questions":[
                  {"id":"how","text":"How did you order? <b>","type":"single_choice","required":true,"choices":[{"id":"app","text":"App"},{"id":"counter","text":"Counter"}]},
                  {"id":"what","text":"What did you eat?","type":"multiple_choice","choices":[{"id":"burger","text":"Burger"},{"id":"fries","text":"Fries"}]},
                  {"id":"stars","text":"Rate us","type":"rating","required":true},
                  {"id":"back","text":"Will you come back?","type":"boolean"},
                  {"id":"user_survey_id","text":"How many?","type":"number","min":-1.5,"max":100},
                  {"id":"answers","text":"Recommend?","type":"slider"},
                  {"id":"note","text":"Anything else?","type":"open_ended"}]}
                """#)
        let sent = try herald.admin(
            "POST", "/api/admin/businesses/\(business.id)/surveys/\(try #require(value(created, "id")))/send",
            json: #"{"user_ids":[\#(bob.userID!)]}"#)
        let id = try #require((sent.json as? [String: Any])?["user_survey_ids"] as? [Int]).first!
        let details = try bob.call("GET", "/api2/mobile/survey_details?client=\(business.client)&user_survey_id=\(id)")
        let url = try #require(try JSON.parse(details.body)["survey_url"]?.stringValue)
        let target = String(url.dropFirst(herald.application.publicBaseURL.count))
        let browser: [(String, String)] = [("Accept", "text/html,application/xhtml+xml")]

        let page = try herald.client().request("GET", target, headers: browser)
        #expect(page.status == 200 && page.header("content-type") == "text/html; charset=utf-8", "\(page)")
        // Nothing runs on it, nothing loads from elsewhere, nobody frames it.
        let policy = try #require(page.header("content-security-policy"))
        #expect(policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'"), "\(policy)")
        #expect(policy.contains("style-src 'sha256-") && !policy.contains("unsafe-inline"))
        #expect(page.header("x-frame-options") == "DENY")
        #expect(page.text.contains("<form method=\"post\"") && page.text.contains("How did you order? &lt;b&gt;"))
        #expect(page.text.contains("<title>Your &lt;visit&gt;</title>"), "names are escaped")
        #expect(page.header("referrer-policy") == "no-referrer")
        // Numbers take any value the validator may (a step of 1 from -1.5 would allow no whole number); an
        // optional slider is a group of steps that can be left alone.
        #expect(page.text.contains(#"name="user_survey_id" step="any" min="-1.5" max="100.0""#), "\(page.text)")
        #expect(page.text.contains(#"type="radio" name="answers" value="10""#) && !page.text.contains(#"type="range""#))
        // Without the link's key, or with another survey's, there is nothing to see.
        #expect(try herald.client().request("GET", "/surveys/\(id)", headers: browser).status == 404)
        #expect(try herald.client().request("GET", "/surveys/\(id)?t=AAAAAAAAAAAAAAAAAAAAAA").status == 404)
        #expect(
            try herald.client().request("GET", target.replacingOccurrences(of: "/\(id)?", with: "/\(id + 1)?")).status
                == 404)
        // Nor with the key worked out from the business secret, which every copy of the app holds (issue 16,
        // finding 3: any user could answer another's survey).
        let forged = Base64URL.encode(
            HMACSHA256.authenticationCode(for: Array("survey-page:\(id)".utf8), key: Array(business.secret.utf8))
                .prefix(16))
        #expect(try herald.client().request("GET", "/surveys/\(id)?t=\(forged)", headers: browser).status == 404)

        func post(_ form: String, html: Bool = true) throws -> TestHTTPClient.Response {
            try herald.client().request(
                "POST", target,
                headers: (html ? browser : []) + [("Content-Type", "application/x-www-form-urlencoded")],
                body: Array(form.utf8))
        }
        // The validator's answers, per question, on the form again; the choices made are kept. (Questions named
        // like the API's own fields are questions like any other.)
        let wrong = try post("how=phone&what=fries&stars=9&user_survey_id=0x10&answers=11")
        #expect(wrong.status == 422 && wrong.text.contains("class=\"problem\""), "\(wrong)")
        #expect(wrong.text.contains("value=\"fries\" checked"))
        #expect(
            wrong.text.components(separatedBy: "class=\"problem\"").count == 5, "one per wrong answer: \(wrong.text)")
        // A caller that doesn't ask for HTML gets the API's JSON.
        let json = try post("how=phone&stars=9", html: false)
        #expect(json.status == 422 && (json.json as? [String: Any])?["errors"] != nil, "\(json)")
        let right = try post(
            "how=app&what=burger&what=fries&stars=5&back=true&user_survey_id=2.5&note=Great+fries+%F0%9F%8D%9F")
        #expect(right.status == 200 && right.text.contains("Thank you"), "\(right)")
        let stored = try #require(try herald.application.store.read { try $0.surveys.userSurvey(id: Int64(id)) })
        #expect(
            stored.userSurvey.answers == [
                "how": "app", "what": ["burger", "fries"], "stars": 5, "back": true, "user_survey_id": 2.5,
                "note": "Great fries 🍟",
            ])
        // Once: the page says so, and the app's API call is refused.
        #expect(try post("how=counter&stars=1").status == 409)
        #expect(try herald.client().request("GET", target, headers: browser).text.contains("Thank you"))
        let late = try bob.call(
            "POST", "/api2/mobile/surveys/\(id)/answers", json: [("answers", ["how": "app", "stars": 4])])
        #expect(late.status == 422)
    }
}
