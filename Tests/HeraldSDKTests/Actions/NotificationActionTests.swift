import HeraldModel
import HeraldPushContent
import Testing

@testable import HeraldSDK

/// A campaign's call to action as the notification's action button: the category made from the message, and what a
/// tap on the button, on the notification, or its dismissal records; the app's link handler sees the link first.
@Suite struct NotificationActionTests {
    @Test func theCallToActionBecomesACategoryNamedAfterItsLabel() throws {
        let plan = try #require(NotificationActionPlan(message: testMessage()))
        #expect(plan.actionTitle == "Order")
        #expect(plan.categoryIdentifier.hasPrefix("herald.cta.") && plan.categoryIdentifier.count == 27)
        #expect(NotificationActionPlan(message: testMessage("other"))?.categoryIdentifier == plan.categoryIdentifier)
        #expect(NotificationActionPlan(message: testMessage(cta: nil)) == nil)
        let unlabelled = testMessage(cta: CallToAction(label: "  ", url: "https://example.com/x"))
        #expect(NotificationActionPlan(message: unlabelled)?.actionTitle == "https://example.com/x")
        let long = testMessage(cta: CallToAction(label: String(repeating: "a", count: 60), url: "https://e.com"))
        #expect(NotificationActionPlan(message: long)?.actionTitle.count == NotificationActionPlan.maximumTitleLength)
        // From a push: only when it carries its message.
        let push = try ArrivalTests.apnsPayload(testMessage())
        #expect(NotificationActionPlan(payload: push) == plan)
        #expect(
            NotificationActionPlan(payload: try ArrivalTests.apnsPayload(testMessage(), includingMessage: false)) == nil
        )
    }

    @Test func registeringKeepsTheAppsCategoriesAndABoundedNumberOfHeralds() throws {
        let plan = try #require(NotificationActionPlan(message: testMessage()))
        let heralds = (0..<30).map { NotificationActionPlan.categoryPrefix + String($0) }
        let kept = plan.categoriesToKeep(registered: Set(heralds + ["app.reply", "app.like"]))
        #expect(kept.isSuperset(of: ["app.reply", "app.like"]))
        #expect(
            kept.filter(NotificationActionPlan.isHeraldCategory).count == NotificationActionPlan.maximumCategories - 1)
        #expect(plan.categoriesToKeep(registered: ["app.reply"]) == ["app.reply"])
    }

    @Test func theButtonOpensTheLinkAsTheCardsButtonWould() async throws {
        let harness = Harness()
        let client = await harness.start(foreground: false)
        let handled = await client.handleResponse(try ArrivalTests.apnsPayload(testMessage()), action: .callToAction)
        #expect(handled)
        #expect(harness.opener.opened.current == ["https://example.com/order"])
        #expect(harness.presenter.shownIDs.isEmpty, "the link, not the card")
        #expect(harness.eventTypes == ["notification.received", "notification.opened", "notification.cta_clicked"])
        await harness.flush()
        #expect(harness.api.eventTypes.contains("notification.cta_clicked"))
    }

    @Test func theAppsLinkHandlerDecidesBeforeAnyLinkOpens() async throws {
        let harness = Harness()
        let client = await harness.start()
        let seen = LockedValue<[String]>([])
        client.setLinkHandler { link in
            seen.update { $0.append(link.url) }
            return link.url.hasPrefix("coffee://")
        }
        let deepLink = testMessage("deep", cta: CallToAction(label: "Open", url: "coffee://menu"))
        #expect(await client.openCta(deepLink) == .opened("coffee://menu"))
        #expect(harness.opener.opened.current.isEmpty, "the app took it")
        #expect(await client.openCta(testMessage()) == .opened("https://example.com/order"))
        #expect(harness.opener.opened.current == ["https://example.com/order"], "the app let the SDK open it")
        let refused = testMessage("bad", cta: CallToAction(label: "x", url: "javascript:alert(1)"))
        #expect(await client.openCta(refused) == .refused("javascript: links are never opened"))
        #expect(seen.current == ["coffee://menu", "https://example.com/order"], "a refused link never reaches it")
        // The card's button goes through it too.
        let screen = client.screen(for: deepLink)
        #expect(await screen.openCTA() == .opened("coffee://menu"))
        #expect(seen.current.count == 3)
    }

    @Test func aDismissalIsRecordedAndTheMessageNotShownAgain() async throws {
        let harness = Harness()
        let client = await harness.start(foreground: false)
        #expect(await client.handleResponse(try ArrivalTests.apnsPayload(testMessage("a")), action: .dismiss))
        let withoutMessage = try ArrivalTests.apnsPayload(testMessage("b"), includingMessage: false)
        #expect(await client.handleResponse(withoutMessage, action: .dismiss))
        #expect(
            harness.eventTypes == [
                "notification.received", "notification.dismissed", "notification.received", "notification.dismissed",
            ])
        #expect(harness.events.current.map { $0.message?.id } == ["a", "a", nil, nil])
        harness.api.queueForPull(testMessage("b"))
        try await client.pull()
        #expect(harness.presenter.shownIDs.isEmpty && harness.presenter.postedIDs.isEmpty, "seen: not shown again")
        #expect(await client.handleResponse(["aps": [:]], action: .dismiss) == false, "not Herald's")
        let other = NotificationResponseAction(rawValue: "app.reply")
        #expect(await client.handleResponse(try ArrivalTests.apnsPayload(testMessage("c")), action: other) == false)
    }
}
