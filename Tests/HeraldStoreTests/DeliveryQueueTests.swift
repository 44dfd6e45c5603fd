import HeraldModel
import HeraldDeliveryPorts
import HeraldTesting
import Testing

@testable import HeraldStore

@Suite("Store conformance: delivery queue")
struct DeliveryQueueTests {
    @Test(arguments: StoreBackend.allCases)
    func entriesAndJobsAreWrittenTogether(_ backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let ios = try fixture.register(fixture.user, key: "ios", token: "aaaa")
        let android = try fixture.register(fixture.user, key: "android", token: "bbbb", platform: .fcm)
        try fixture.register(fixture.user, key: "logged-out", token: .some(nil))
        let entry = try fixture.publish([fixture.draft(fixture.user)], at: at(10))[0]
        let jobs = try store.read { try $0.deliveries.all(notificationID: entry.id) }
        #expect(jobs.map(\.deviceID) == [ios.id, android.id])
        #expect(jobs.map(\.platform) == [.apns, .fcm])
        #expect(jobs.allSatisfy { $0.status == .queued && $0.attempts == 0 && $0.nextAttemptAt == at(10) })
        #expect(Set(jobs.map(\.apnsID)).count == 2)
        #expect(jobs.allSatisfy { $0.apnsID.count == 36 })
        let inboxOnly = try fixture.publish([fixture.draft(fixture.user, style: .none)], at: at(10))[0]
        #expect(try store.read { try $0.deliveries.all(notificationID: inboxOnly.id) }.isEmpty)
        // Accepted without an id of the provider's: an APNs job reads back with its own apns-id (Apple answers with
        // the one sent, so the store keeps no second copy); an FCM job has none.
        let claimed = try store.deliveryQueue.claim(owner: "w", limit: 10, leaseUntil: at(70), at: at(10))
        try store.deliveryQueue.record(
            claimed.map {
                DeliveryCompletion(
                    id: $0.id, leaseOwner: "w", outcome: .delivered(providerMessageID: nil), deviceID: $0.deviceID,
                    token: $0.token)
            }, at: at(11))
        let answered = try store.read { try $0.deliveries.all(notificationID: entry.id) }
        #expect(answered.map(\.providerMessageID) == [answered[0].apnsID, nil])
    }

    @Test(arguments: StoreBackend.allCases)
    func aClaimCarriesTheEntrysCollapseID(_ backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let queue = store.deliveryQueue
        try fixture.register(fixture.user, key: "ios", token: "aaaa")
        var draft = fixture.draft(fixture.user)
        draft.collapseID = "menu-of-the-day"
        let entries = try fixture.publish([draft, fixture.draft(fixture.user)], at: at(10))
        #expect(entries.map(\.collapseID) == ["menu-of-the-day", nil])
        let claimed = try queue.claim(owner: "node", limit: 10, leaseUntil: at(70), at: at(10))
        #expect(claimed.map(\.notification.collapseID) == ["menu-of-the-day", nil])
    }

    @Test(arguments: StoreBackend.allCases)
    func claimsLeaseAndReclaimAfterExpiry(_ backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let queue = store.deliveryQueue
        let device = try fixture.register(fixture.user, key: "ios", token: "aaaa")
        let entries = try fixture.publish(
            [fixture.draft(fixture.user, "one"), fixture.draft(fixture.user, "two")], at: at(10))
        #expect(try queue.depth(at: at(10)) == QueueDepth(queued: 2, due: 2, sending: 0))
        #expect(try queue.claim(owner: "w1", limit: 10, leaseUntil: at(20), at: at(9)).isEmpty, "not due yet")

        let claimed = try queue.claim(owner: "w1", limit: 10, leaseUntil: at(20), at: at(10))
        #expect(claimed.count == 2)
        #expect(claimed[0].notification == entries[0].queued)
        #expect(claimed[0].token == "aaaa")
        #expect(claimed[0].deviceID == device.id)
        #expect(claimed[0].deviceBelongsToRecipient)
        #expect(claimed[0].badge == 2)
        #expect(claimed[0].attempts == 1)
        #expect(try queue.depth(at: at(10)) == QueueDepth(queued: 0, due: 0, sending: 2))
        #expect(try queue.claim(owner: "w2", limit: 10, leaseUntil: at(30), at: at(15)).isEmpty, "leased")

        // w1 dies; its lease runs out and w2 takes the jobs over. w1's late report is ignored.
        let reclaimed = try queue.claim(owner: "w2", limit: 10, leaseUntil: at(40), at: at(20))
        #expect(reclaimed.map(\.id) == claimed.map(\.id))
        #expect(reclaimed.map(\.attempts) == [2, 2])
        #expect(reclaimed.map(\.apnsID) == claimed.map(\.apnsID), "a retried send keeps its apns-id")
        let late = DeliveryCompletion(
            id: claimed[0].id, leaseOwner: "w1", outcome: .delivered(providerMessageID: "x"), deviceID: device.id,
            token: "aaaa")
        #expect(try queue.record([late], at: at(21)) == 0)

        let done = reclaimed.map {
            DeliveryCompletion(
                id: $0.id, leaseOwner: "w2", outcome: .delivered(providerMessageID: "apns-\($0.id)"),
                deviceID: device.id, token: "aaaa")
        }
        #expect(try queue.record(done, at: at(22)) == 2)
        #expect(try queue.record(done, at: at(23)) == 0, "a job completes once")
        let jobs = try store.read { try $0.deliveries.all(notificationID: entries[0].id) }
        #expect(jobs[0].status == .delivered)
        #expect(jobs[0].providerMessageID == "apns-\(jobs[0].id)")
        #expect(try queue.depth(at: at(30)) == QueueDepth(queued: 0, due: 0, sending: 0))
    }

    /// Accepted pushes are written many rows per statement: more than one statement's worth (300 > 256), of a size
    /// that is not a power of two, mixed with a failure, a late answer whose lease another node holds, and an
    /// answer without a provider id (Apple's, the job's own `apns-id`): each row gets its own id, and only rows still
    /// leased to the writer change.
    @Test(arguments: StoreBackend.allCases)
    func acceptedPushesAreRecordedInBatches(_ backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let queue = store.deliveryQueue
        let device = try fixture.register(fixture.user, key: "ios", token: "aaaa")
        _ = try fixture.publish((0..<303).map { fixture.draft(fixture.user, "n\($0)") }, at: at(0))
        let mine = try queue.claim(owner: "w1", limit: 302, leaseUntil: at(60), at: at(0))
        let theirs = try queue.claim(owner: "w2", limit: 10, leaseUntil: at(60), at: at(0))
        #expect(mine.count == 302 && theirs.count == 1)
        func complete(_ job: ClaimedDelivery, _ outcome: DeliveryCompletion.Outcome) -> DeliveryCompletion {
            DeliveryCompletion(id: job.id, leaseOwner: "w1", outcome: outcome, deviceID: device.id, token: job.token)
        }
        var batch = mine[0..<300].map { complete($0, .delivered(providerMessageID: "apns-\($0.id)")) }
        batch.insert(complete(mine[300], .failed(reason: "400 BadTopic")), at: 150)
        batch.append(complete(mine[301], .delivered(providerMessageID: nil)))
        batch.append(complete(theirs[0], .delivered(providerMessageID: "late")))  // w2's lease: not w1's to write
        #expect(try queue.record(batch, at: at(1)) == 302)
        #expect(try queue.record(batch, at: at(2)) == 0, "a job completes once")
        let jobs = try store.read { tx in
            try (mine + theirs).map { try tx.deliveries.all(notificationID: $0.notification.id)[0] }
        }
        #expect(jobs[0..<300].allSatisfy { $0.status == .delivered && $0.providerMessageID == "apns-\($0.id)" })
        #expect(jobs[300].status == .failed)
        #expect(
            jobs[301].status == .delivered && jobs[301].providerMessageID == jobs[301].apnsID,
            "Apple's id is the job's own apns-id")
        #expect(jobs[302].status == .sending, "still w2's")
        #expect(try queue.depth(at: at(3)) == QueueDepth(queued: 0, due: 0, sending: 1))
    }

    @Test(arguments: StoreBackend.allCases)
    func retriesWaitsFailuresAndRelease(_ backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let queue = store.deliveryQueue
        let device = try fixture.register(fixture.user, key: "ios", token: "aaaa")
        let entries = try fixture.publish((1...4).map { fixture.draft(fixture.user, "n\($0)") }, at: at(0))
        let claimed = try queue.claim(owner: "w", limit: 3, leaseUntil: at(60), at: at(0))
        #expect(claimed.count == 3, "limit is honoured")
        func complete(_ job: ClaimedDelivery, _ outcome: DeliveryCompletion.Outcome) -> DeliveryCompletion {
            DeliveryCompletion(id: job.id, leaseOwner: "w", outcome: outcome, deviceID: device.id, token: job.token)
        }
        try queue.record(
            [
                complete(claimed[0], .retry(at: at(30), reason: "503 ServiceUnavailable")),
                complete(claimed[1], .wait(until: at(100), reason: "credential broken: InvalidProviderToken")),
                complete(claimed[2], .failed(reason: "400 BadTopic")),
            ], at: at(1))
        #expect(try queue.depth(at: at(1)) == QueueDepth(queued: 3, due: 1, sending: 0))
        let statuses = try entries.map { entry in try store.read { try $0.deliveries.all(notificationID: entry.id) }[0]
        }
        #expect(
            statuses[0].status == .queued && statuses[0].lastReason == "503 ServiceUnavailable"
                && statuses[0].nextAttemptAt == at(30))
        #expect(statuses[1].attempts == 0, "waiting on a broken credential is not an attempt")
        #expect(statuses[2].status == .failed && statuses[2].lastReason == "400 BadTopic")

        // Graceful shutdown hands the claim back, due at once, without counting the attempt.
        let fourth = try queue.claim(owner: "w", limit: 10, leaseUntil: at(60), at: at(2))
        #expect(fourth.map(\.notification.id) == [entries[3].id])
        #expect(try queue.handBack(owner: "w", at: at(3)) == 1)
        let released = try store.read { try $0.deliveries.all(notificationID: entries[3].id) }[0]
        #expect(released.status == .queued && released.attempts == 0 && released.nextAttemptAt == at(3))

        // The operator's "retry now" makes the business's waiting jobs due at once (on PostgreSQL, found through the
        // due table).
        let retried = try store.transaction {
            try $0.deliveries.retryNow(businessID: fixture.business.id, notificationID: nil, at: at(4))
        }
        #expect(retried == 3)
        #expect(try queue.depth(at: at(4)) == QueueDepth(queued: 3, due: 3, sending: 0))

        // A fixed credential makes waiting jobs due now.
        try queue.reschedule(businessID: fixture.business.id, platform: .apns, dueAt: at(5))
        #expect(try queue.claim(owner: "w", limit: 10, leaseUntil: at(60), at: at(5)).count == 3)
    }

    @Test(arguments: StoreBackend.allCases)
    func deadTokensArePrunedUnlessRegisteredAgain(_ backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let queue = store.deliveryQueue
        let device = try fixture.register(fixture.user, key: "ios", token: "dead", at: at(10))
        /// A push to the user sent at `time`, answered a second later: `reason`, Apple's verdict at `since`.
        @discardableResult
        func pruned(at time: Int64, _ reason: String, since: Int64?) throws -> ClaimedDelivery {
            _ = try fixture.publish([fixture.draft(fixture.user)], at: at(time))
            let job = try queue.claim(owner: "w", limit: 1, leaseUntil: at(60), at: at(time))[0]
            try queue.record(
                [
                    DeliveryCompletion(
                        id: job.id, leaseOwner: "w", outcome: .pruned(reason: reason, unregisteredAt: since.map(at)),
                        deviceID: device.id, token: "dead")
                ], at: at(time + 1))
            return job
        }

        // Apple says the token died at t=5, before it was registered at t=10: the token stays.
        let job = try pruned(at: 11, "410 Unregistered", since: 5)
        #expect(try store.read { try $0.devices.find(id: device.id) }?.token == "dead")
        #expect(try store.read { try $0.deliveries.all(notificationID: job.notification.id) }[0].status == .pruned)

        // The app registers the very same token again at t=20, after Apple's next verdict (t=18): it stays.
        try fixture.register(fixture.user, key: "ios", token: "dead", at: at(20))
        try pruned(at: 21, "410 Unregistered", since: 18)
        #expect(
            try store.read { try $0.devices.find(id: device.id) }?.token == "dead",
            "registered again after Apple's timestamp")

        try pruned(at: 23, "410 Unregistered", since: 22)
        #expect(try store.read { try $0.devices.find(id: device.id) }?.token == nil)

        // A token pruned after a new one was set is not the device's token any more: the new one stays.
        try fixture.register(fixture.user, key: "ios", token: "fresh", at: at(25))
        try pruned(at: 26, "400 BadDeviceToken", since: nil)
        #expect(try store.read { try $0.devices.find(id: device.id) }?.token == "fresh")
    }

    @Test(arguments: StoreBackend.allCases)
    func aPrunedTokenIsClearedOnlyFromTheDeviceThePushWentTo(_ backend: StoreBackend) throws {
        // A token is one device's; one that moved to another user's device while a push to it was in flight stays
        // with the device it moved to, whatever the provider answers about the push.
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let queue = store.deliveryQueue
        let bob = try fixture.addUser("bob@example.com")
        let anns = try fixture.register(fixture.user, key: "ann-phone", token: "tttt", at: at(1))
        func token(_ device: Device) throws -> String? { try store.read { try $0.devices.find(id: device.id) }?.token }
        _ = try fixture.publish([fixture.draft(fixture.user, "for Ann")], at: at(2))
        let job = try #require(try queue.claim(owner: "w", limit: 1, leaseUntil: at(60), at: at(3)).first)
        #expect(job.deviceID == anns.id)
        let bobs = try fixture.register(bob, key: "bob-phone", token: "tttt", at: at(4))
        #expect(try token(anns) == nil && token(bobs) == "tttt")
        try queue.record(
            [
                DeliveryCompletion(
                    id: job.id, leaseOwner: "w", outcome: .pruned(reason: "410 Unregistered", unregisteredAt: nil),
                    deviceID: anns.id, token: "tttt")
            ], at: at(5))
        #expect(try token(bobs) == "tttt", "Bob's device registered it after the push was sent")
    }

    @Test(arguments: StoreBackend.allCases)
    func claimsSeeTokensClearedOrMovedSinceTheJobWasMade(_ backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let queue = store.deliveryQueue
        let bob = try fixture.addUser("bob@example.com")
        let device = try fixture.register(fixture.user, key: "shared-phone", token: "tttt")
        _ = try fixture.publish([fixture.draft(fixture.user, "for Ann")], at: at(1))
        // Bob logs in on the same phone before the send, sending its push token (the proof that he holds it: a
        // device id alone does not move a device to another user).
        try fixture.register(bob, key: "shared-phone", token: "tttt", at: at(3))
        #expect(try store.read { try $0.devices.find(id: device.id) }?.userID == bob.id)
        let job = try queue.claim(owner: "w", limit: 1, leaseUntil: at(60), at: at(4))[0]
        #expect(job.deviceBelongsToRecipient == false)
        #expect(job.notification.body == "for Ann")
    }

    @Test(arguments: StoreBackend.allCases)
    func theAPNsEnvironmentAHostShowedStaysWithTheToken(_ backend: StoreBackend) throws {
        // A device of the Punchh API says no environment: the credential's is used until Apple's other host takes
        // its token, and from then on that host's, while the device keeps the token.
        let fixture = try StoreFixture(backend)
        let queue = fixture.store.deliveryQueue
        let device = try fixture.register(fixture.user, key: "ios", token: "aaaa", at: at(1))
        func claimNext(_ time: Int64) throws -> ClaimedDelivery {
            _ = try fixture.publish([fixture.draft(fixture.user)], at: at(time))
            return try #require(try queue.claim(owner: "w", limit: 1, leaseUntil: at(time + 60), at: at(time)).first)
        }
        func answer(_ job: ClaimedDelivery, _ time: Int64, environment: String?) throws {
            let outcome = DeliveryCompletion.Outcome.delivered(providerMessageID: nil)
            try queue.record(
                [DeliveryCompletion(job, owner: "w", outcome: outcome, apnsEnvironment: environment)], at: at(time))
        }
        let first = try claimNext(10)
        #expect(first.apnsEnvironment == nil)
        try answer(first, 11, environment: "sandbox")
        #expect(try claimNext(20).apnsEnvironment == "sandbox")
        // Signed in again with the same token: still that host's. A new token may be either's.
        try fixture.register(fixture.user, key: "ios", token: "aaaa", at: at(30))
        let again = try claimNext(31)
        #expect(again.apnsEnvironment == "sandbox")
        try fixture.register(fixture.user, key: "ios", token: "bbbb", at: at(40))
        #expect(try claimNext(41).apnsEnvironment == nil)
        // An answer for the token the device held before changes nothing.
        try answer(again, 42, environment: "production")
        #expect(try claimNext(50).apnsEnvironment == nil)
        #expect(try fixture.store.read { try $0.devices.find(id: device.id) }?.token == "bbbb")
    }

    @Test(
        .bug(id: "review-3-2", "a device's due rows were deleted by id, which no index of the due table reads"),
        arguments: StoreBackend.allCases)
    func aDeletedDevicesJobsLeaveTheQueueByTheDueIndex(_ backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let queue = store.deliveryQueue
        let ios = try fixture.register(fixture.user, key: "ios", token: "aaaa")
        try fixture.register(fixture.user, key: "android", token: "bbbb", platform: .fcm)
        _ = try fixture.publish([fixture.draft(fixture.user, "one"), fixture.draft(fixture.user, "two")], at: at(10))
        #expect(try queue.depth(at: at(10)) == QueueDepth(queued: 4, due: 4, sending: 0))
        try store.transaction { try $0.devices.delete(id: ios.id) }
        #expect(try queue.depth(at: at(10)) == QueueDepth(queued: 2, due: 2, sending: 0))
        #expect(try queue.claim(owner: "w", limit: 10, leaseUntil: at(70), at: at(10)).map(\.platform) == [.fcm, .fcm])
        guard store.database.dialect.queueTables else { return }
        // A due table the size of a busy queue's, and a plan for deleting a device's jobs from it.
        try store.database.write { db in
            try db.execute(
                """
                INSERT INTO delivery_due (id, due_at, business_id, platform)
                SELECT g, g, 1, 'apns' FROM generate_series(1000000, 1050000) g
                """)
            try db.execute("ANALYZE delivery_due")
            try db.execute("ANALYZE deliveries")
        }
        let statement = DeviceRecords.deletingJobs("device_id = \(ios.id)", dueTable: true)
        let plan = try store.database.read { db in
            try db.rows("EXPLAIN \(statement)").map { $0.text(0) }.joined(separator: "\n")
        }
        #expect(plan.contains("Index Scan using delivery_due_time on delivery_due"), "\(plan)")
        #expect(!plan.contains("Seq Scan on delivery_due"), "\(plan)")
    }
}
