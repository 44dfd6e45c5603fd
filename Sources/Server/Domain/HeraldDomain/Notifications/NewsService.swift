import HeraldModel
import HeraldStore

/// What an operator sends by hand: news to users' inboxes (worded by the business's `news` template), pushes to
/// raw device tokens, and "retry now" for deliveries waiting out their backoff.
package struct NewsService: Sendable {
    let store: Store
    let notifications: NotificationService
    let clock: WallClock

    /// The service over `store`.
    package init(store: Store, notifications: NotificationService, clock: WallClock) {
        self.store = store
        self.notifications = notifications
        self.clock = clock
    }

    /// A news item as the operator writes it.
    package struct News: Sendable {
        /// The `{{title}}` of the template.
        package var title: String
        /// The `{{body}}` of the template.
        package var body: String
        /// The `{{subtitle}}` of the template.
        package var subtitle: String?
        /// Rich media.
        package var media: MediaAttachment?
        /// Pushes sharing it replace one another on the device.
        package var collapseID: String?
        /// A call to action, in the payload and the entry as `cta`.
        package var cta: CallToAction?

        /// A news item.
        package init(
            title: String, body: String, subtitle: String? = nil, media: MediaAttachment? = nil,
            collapseID: String? = nil, cta: CallToAction? = nil
        ) {
            self.title = title
            self.body = body
            self.subtitle = subtitle
            self.media = media
            self.collapseID = collapseID
            self.cta = cta
        }
    }

    /// Sends `news` to the users `userIDs` of `business` (all of them the business's: see `knownUsers`), one entry
    /// (and its pushes) each, worded by the `news` template read once. Nothing is written unless every push fits
    /// (`PushSize`); a disabled template is refused, not silently nothing, since the operator asked for it.
    package func send(_ news: News, business: Business, to userIDs: [Int64]) throws -> [InboxEntry] {
        var values = ["title": news.title, "body": news.body]
        if let subtitle = news.subtitle { values["subtitle"] = subtitle }
        let now = clock.now()
        return try store.transaction { tx in
            let users = try tx.knownUsers(businessID: business.id, ids: userIDs)
            let notifier = notifications.notifier(for: business, in: tx, at: now)
            if try notifier.template(.news)?.enabled == false {
                throw DomainError(
                    .invalid, field: "base",
                    "the news template is disabled: enable it (PUT …/templates/news) to send news")
            }
            let drafts = try users.compactMap { user -> NotificationDraft? in
                var extras: [(key: String, value: JSON)] = [("u", .int(user.id))]
                if let cta = news.cta { extras.append(("cta", cta.json)) }
                let notice = Notice(
                    user: user, event: .news, kind: .news, values: values, extras: .object(extras), media: news.media,
                    collapseID: news.collapseID)
                guard let draft = try notifier.draft(notice) else { return nil }
                try PushSize.check(draft, field: "body")
                return draft
            }
            return try drafts.map { try notifier.publish($0) }
        }
    }

    /// Queues `push` for each of its tokens (see `NotificationService.send(_:businessID:in:at:)`); the entries' ids,
    /// in the tokens' order.
    package func send(_ push: DirectPush, businessID: Int64) throws -> [Int64] {
        let now = clock.now()
        return try store.transaction { tx in try notifications.send(push, businessID: businessID, in: tx, at: now) }
    }

    /// Makes `businessID`'s queued deliveries (only `notificationID`'s when given) due now, whatever backoff they
    /// were waiting out; returns how many.
    package func retryNow(businessID: Int64, notificationID: Int64?) throws -> Int {
        let now = clock.now()
        return try store.transaction {
            try $0.deliveries.retryNow(businessID: businessID, notificationID: notificationID, at: now)
        }
    }
}
