import Dispatch
import HeraldDomain
import HeraldModel
import HeraldStore
import HeraldTesting
import Synchronization
import Testing

@Suite("Domain conformance: installs")
struct DeviceServiceTests {
    @Test(arguments: StoreBackend.allCases)
    func anInstallIsMadeRotatedWithItsCredentialAndStartedAfreshWithout(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let first = try w.install("install-1", token: .some(apnsToken(1)), segments: ["vip", "vip", "beta"])
        #expect(first.outcome == .created && first.isNew)
        #expect(first.testDevice == nil)
        let device = first.device
        #expect(device.userID == nil)
        #expect(device.token == apnsToken(1))
        #expect(device.install?.workspace == .live)
        #expect(device.install?.timeZone == "America/New_York")
        #expect(device.install?.lastSeenAt == at(0))
        #expect(try w.devices.segments(device) == ["beta", "vip"])
        let message = try w.message(to: device, campaign: nil)

        // Signed with its current credential: the same install, a new credential, everything kept.
        w.world.clock.set(at(10))
        let rotated = try w.install("install-1", signedBy: device.id)
        #expect(rotated.outcome == .rotated && !rotated.isNew)
        #expect(rotated.device.id == device.id)
        #expect(rotated.device.install?.keyID != device.install?.keyID)
        #expect(rotated.device.token == apnsToken(1), "no token sent: kept")
        #expect(try w.store.read { try $0.devices.find(keyID: device.install!.keyID) } == nil, "old key is gone")
        #expect(try w.devices.message(rotated.device, id: message.id) != nil)
        #expect(try w.devices.segments(rotated.device) == ["beta", "vip"])

        // Signed by another install: refused.
        let other = try w.install("install-2")
        #expect(throws: DomainError.self) { try w.install("install-1", signedBy: other.device.id) }

        // Unsigned, the same id, no proof: a new install under an id of the server's; the old one untouched.
        let fresh = try w.install("install-1", token: .some(apnsToken(1)))
        #expect(fresh.outcome == .separated && fresh.isNew)
        #expect(fresh.device.id != rotated.device.id)
        #expect(fresh.device.deviceKey != "install-1")
        #expect(fresh.device.userID == nil)
        let kept = try #require(try w.reload(device))
        #expect(kept.install?.keyID == rotated.device.install?.keyID, "the old credential still works")
        #expect(try w.devices.message(kept, id: message.id) != nil)
        #expect(try w.devices.segments(kept) == ["beta", "vip"])
        #expect(try w.devices.message(fresh.device, id: message.id) == nil)
        #expect(try w.devices.segments(fresh.device).isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func aPunchhDeviceIsAdoptedOnlyWithProofOfItsUser(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let ann = w.world.user
        let phone = try w.world.register(ann, key: "ann-phone", token: .some(apnsToken(7)), at: at(1))
        let message = try w.message(to: phone, campaign: nil, headline: "Private offer for Ann")

        // Knowing the device id is not enough, nor is another user's proof: a separate install, Ann's untouched.
        let other = try w.world.addUser("bob@example.com")
        for proof in [nil, OwnershipProof(userID: other.id), OwnershipProof(externalID: "nobody")] {
            let intruder = try w.install("ann-phone", token: .some(apnsToken(9)), proof: proof)
            #expect(intruder.outcome == .separated)
            #expect(intruder.device.id != phone.id && intruder.device.userID == nil)
            #expect(try w.devices.pull(intruder.device).isEmpty)
            #expect(try w.devices.message(intruder.device, id: message.id) == nil)
        }
        let untouched = try #require(try w.reload(phone))
        #expect(untouched.userID == ann.id && untouched.token == apnsToken(7) && untouched.install == nil)

        // Ann's access token (here: her user) proves it: the one device, her user and token kept.
        let adopted = try w.install("ann-phone", token: .some(nil), proof: OwnershipProof(userID: ann.id))
        #expect(adopted.outcome == .adopted && adopted.isNew)
        #expect(adopted.device.id == phone.id)
        #expect(adopted.device.userID == ann.id)
        #expect(adopted.device.token == apnsToken(7), "the Punchh token stays while the install has none")
        #expect(adopted.device.install?.keyID != nil)
        // Ann's news reaches the one device.
        let news = try w.world.publish([w.world.draft(ann)])
        #expect(try w.world.deliveries(of: news[0]).map(\.deviceID) == [phone.id])
        // The Punchh API sees the install's new token on the same row.
        let updated = try w.devices.update(adopted.device, details: DeviceWorld.details(token: .some(apnsToken(8))))
        #expect(try w.store.read { try $0.devices.all(userID: ann.id) }.map(\.token) == [apnsToken(8)])
        #expect(updated.id == phone.id)

        // An install that lost its credential is given back to the proof of its user: the same install.
        let reclaimed = try w.install("ann-phone", proof: OwnershipProof(userID: ann.id))
        #expect(reclaimed.outcome == .reclaimed && !reclaimed.isNew)
        #expect(reclaimed.device.id == phone.id && reclaimed.device.token == apnsToken(8))
        #expect(reclaimed.device.install?.keyID != adopted.device.install?.keyID)

        // An imported user's device, by the identity token's external id.
        let now = w.world.clock.now
        let businessID = w.business.id
        let cy = try w.store.transaction { tx in
            try tx.users.insertImported(
                businessID: businessID, externalID: "cust-cy", email: nil, firstName: "", lastName: "",
                attributes: .object([]), at: now)
        }
        let cyPhone = try w.world.register(cy, key: "cy-phone", token: .some(apnsToken(5)))
        #expect(try w.install("cy-phone", proof: OwnershipProof(externalID: "cust-ann")).outcome == .separated)
        let cyInstall = try w.install("cy-phone", proof: OwnershipProof(externalID: "cust-cy"))
        #expect(cyInstall.outcome == .adopted && cyInstall.device.id == cyPhone.id)
    }

    @Test(arguments: StoreBackend.allCases)
    func aTokenAUsersDeviceHoldsIsNoInstallOfNobodysButAnIdentifiedInstallsToTake(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let ann = w.world.user
        let phone = try w.world.register(ann, key: "ann-phone", token: .some(apnsToken(7)), at: at(1))
        // An install of nobody sending Ann's token (unsigned, or in a signed update) takes nothing from her device,
        // and holds no token: the phone is Ann's until someone signs in on it.
        let intruder = try w.install("intruder", token: .some(apnsToken(7)))
        #expect(intruder.device.token == nil)
        let updated = try w.devices.update(intruder.device, details: DeviceWorld.details(token: .some(apnsToken(7))))
        #expect(updated.token == nil)
        let kept = try #require(try w.reload(phone))
        #expect(kept.token == apnsToken(7) && kept.userID == ann.id)
        // Identified (through its own credential) as someone, the install is a signed-in registration: it takes it.
        let identified = try DeviceIdentityService(store: w.store, clock: w.world.clock.wallClock).identify(
            updated, externalID: "crm-eve")
        let taken = try w.devices.update(identified, details: DeviceWorld.details(token: .some(apnsToken(7))))
        #expect(taken.token == apnsToken(7) && taken.userID != nil)
        #expect(try w.reload(phone)?.token == nil)
        // A device of nobody gives its token up as before.
        let loose = try w.install("loose", token: .some(apnsToken(3))).device
        #expect(try w.install("other", token: .some(apnsToken(3))).device.token == apnsToken(3))
        #expect(try w.reload(loose)?.token == nil)
    }

    @Test(arguments: StoreBackend.allCases)
    func aTokenBelongsToOneDeviceAndUpdatesApplyWhatTheySay(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let a = try w.install("a", token: .some(apnsToken(1))).device
        let b = try w.install("b", token: .some(apnsToken(1))).device
        #expect(try w.reload(a)?.token == nil, "the token moved to b")
        #expect(b.token == apnsToken(1))
        var details = DeviceWorld.details(token: .some(nil))
        details.timeZone = "Europe/Paris"
        details.notificationsEnabled = false
        w.world.clock.set(at(120))
        let updated = try w.devices.update(b, details: details)
        #expect(updated.token == nil)
        #expect(updated.install?.timeZone == "Europe/Paris")
        #expect(updated.install?.notificationsEnabled == false)
        #expect(updated.install?.lastSeenAt == at(120))
        // FCM now, no token sent: the APNs token is no FCM token.
        _ = try w.devices.update(updated, details: DeviceWorld.details(token: .some(apnsToken(2))))
        let moved = try w.devices.update(updated, details: DeviceWorld.details(platform: .fcm))
        #expect(moved.platform == .fcm && moved.token == nil)
        // Deleted meanwhile: an update finds nothing.
        try w.devices.delete(moved)
        #expect(throws: DomainError.notFound("install")) { try w.devices.update(moved, details: DeviceWorld.details()) }
    }

    @Test(arguments: StoreBackend.allCases)
    func sandboxInstallsAreTestDevicesApprovedUpToTheCapAndLapseWhenUnused(_ backend: StoreBackend) throws {
        var options = DeviceService.Options()
        options.testDeviceLimit = 3
        let w = try DeviceWorld(backend, options: options)
        let phones = try (1...4).map { try w.install("sandbox-\($0)", workspace: .sandbox) }
        for phone in phones {
            #expect(phone.testDevice?.status == "pending")
            #expect(ApprovalCode.isWellFormed(phone.testDevice!.approvalCode))
        }
        #expect(Set(phones.map(\.testDevice!.approvalCode)).count == 4)
        #expect(try w.install("live-1").testDevice == nil)

        for phone in phones.prefix(3) {
            let approved = try w.devices.approveTestDevice(business: w.business, code: phone.testDevice!.approvalCode)
            #expect(approved.standing.isApproved)
            #expect(approved.device.id == phone.device.id)
        }
        // Approving again changes nothing; a fourth is over the cap.
        #expect(
            try w.devices.approveTestDevice(business: w.business, code: phones[0].testDevice!.approvalCode).standing
                .isApproved)
        #expect(throws: DomainError.self) {
            try w.devices.approveTestDevice(business: w.business, code: phones[3].testDevice!.approvalCode)
        }
        #expect(throws: DomainError.self) { try w.devices.approveTestDevice(business: w.business, code: "ZZZZZZZZ") }

        // Phones 2 and 3 keep being used; phone 1 is not used for 30 days and is pending again, freeing its place.
        w.world.clock.set(at(29 * 86_400))
        for phone in phones[1...2] { try w.devices.touch(try #require(try w.reload(phone.device))) }
        w.world.clock.set(at(30 * 86_400 + 10))
        let idle = try #require(try w.reload(phones[0].device))
        #expect(w.devices.testDevice(idle)?.status == "pending")
        let fourth = try w.devices.approveTestDevice(business: w.business, code: phones[3].testDevice!.approvalCode)
        #expect(fourth.standing.isApproved)
        // Calling again after the lapse does not bring the approval back.
        try w.devices.touch(idle)
        let returned = try #require(try w.reload(idle))
        #expect(returned.install?.testStatus == "pending")
        #expect(w.devices.testDevice(returned)?.status == "pending")
        #expect(throws: DomainError.self) {
            try w.devices.approveTestDevice(business: w.business, code: phones[0].testDevice!.approvalCode)
        }

        // A sandbox install registering with the live key is a live install: no standing, no code.
        let live = try w.install("sandbox-2", workspace: .live, signedBy: phones[1].device.id)
        #expect(live.testDevice == nil && live.device.install?.approvalCode == nil)
    }

    @Test(arguments: StoreBackend.allCases)
    func approvalCodesAreUniqueInTheirBusiness(_ backend: StoreBackend) throws {
        let codes = Mutex(["AAAAAAAA", "AAAAAAAA", "AAAAAAAA", "BBBBBBBB"])
        let w = try DeviceWorld(backend) { codes.withLock { $0.removeFirst() } }
        #expect(try w.install("one", workspace: .sandbox).testDevice?.approvalCode == "AAAAAAAA")
        #expect(try w.install("two", workspace: .sandbox).testDevice?.approvalCode == "BBBBBBBB")
    }

    @Test(arguments: StoreBackend.allCases)
    func touchingWritesTheLastSightAtMostOnceAMinute(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let device = try w.install("phone").device
        w.world.clock.set(at(30))
        try w.devices.touch(device)
        #expect(try w.reload(device)?.install?.lastSeenAt == at(0))
        w.world.clock.set(at(61))
        try w.devices.touch(device)
        #expect(try w.reload(device)?.install?.lastSeenAt == at(61))
    }

    @Test(arguments: StoreBackend.allCases)
    func pullsHandEachMessageOnceEvenWhenTheyRace(_ backend: StoreBackend) throws {
        var options = DeviceService.Options()
        options.pullLimit = 7
        let w = try DeviceWorld(backend, options: options)
        let device = try w.install("phone").device
        let other = try w.install("other").device
        let campaign = try w.campaign()
        let sent = try (1...60).map { try w.message(to: device, campaign: campaign, trigger: "t\($0)") }
        let elsewhere = try w.message(to: other, campaign: campaign)
        // Four pullers over two connections (two nodes), released together.
        let second = DeviceService(
            store: try w.world.backend.reopen(w.world.path), clock: w.world.clock.wallClock, options: options)
        let services = [w.devices, second]
        let handed = Mutex<[Int64]>([])
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let failures = Mutex<[String]>([])
        for index in 0..<4 {
            done.enter()
            DispatchQueue.global().async {
                gate.wait()
                do {
                    while true {
                        let batch = try services[index % 2].pull(device)
                        if batch.isEmpty { break }
                        handed.withLock { $0 += batch.compactMap { Int64($0.id) } }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
                done.leave()
            }
        }
        for _ in 0..<4 { gate.signal() }
        done.wait()
        #expect(failures.withLock { $0 }.isEmpty)
        let ids = handed.withLock { $0 }
        #expect(ids.count == sent.count, "each message handed once")
        #expect(Set(ids) == Set(sent.map(\.id)))
        #expect(!ids.contains(elsewhere.id))
        #expect(try w.devices.pull(device).isEmpty)
        #expect(try w.devices.pull(other).map(\.id) == [String(elsewhere.id)])
    }

    @Test(arguments: StoreBackend.allCases)
    func aPullSignedTheSameAgainIsAnsweredTheSameNeverWithNewMessages(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let device = try w.install("phone").device
        let other = try w.install("other").device
        let campaign = try w.campaign()
        let first = try w.message(to: device, campaign: campaign, trigger: "first")
        #expect(try w.devices.pull(device, signature: "aa").map(\.id) == [String(first.id)])

        // A message arrives; the same signature (a replay within the window) gets the first answer again.
        w.world.clock.set(at(200))
        let second = try w.message(to: device, campaign: campaign, trigger: "second")
        #expect(try w.devices.pull(device, signature: "aa").map(\.id) == [String(first.id)])
        // Another install's answers are its own.
        #expect(try w.devices.pull(other, signature: "aa").isEmpty)
        // A pull signed anew takes the new message, once.
        #expect(try w.devices.pull(device, signature: "bb").map(\.id) == [String(second.id)])
        #expect(try w.devices.pull(device, signature: "aa").map(\.id) == [String(first.id)])
        #expect(try w.devices.pull(device).isEmpty)

        // A visit's Idempotency-Key is no pull's: it stays when the pulls' answers are forgotten.
        try w.store.transaction { tx in
            _ = try tx.deviceEvents.keep(
                answer: .object([]), requestHash: nil, deviceID: device.id, key: "pull", at: at(0))
        }
        // Past the window the answers are forgotten: the signature (no longer accepted by then) pulls afresh.
        w.world.clock.set(at(200).adding(w.devices.options.pullReplayWindow).adding(.seconds(1)))
        let third = try w.message(to: device, campaign: campaign, trigger: "third")
        #expect(try w.devices.pull(device, signature: "cc").map(\.id) == [String(third.id)])
        try w.store.read { tx throws in
            #expect(try tx.deviceEvents.answer(deviceID: device.id, key: "pull aa") == nil)
            #expect(try tx.deviceEvents.answer(deviceID: device.id, key: "pull bb") == nil)
            #expect(try tx.deviceEvents.answer(deviceID: device.id, key: "pull cc") != nil)
            #expect(try tx.deviceEvents.answer(deviceID: device.id, key: "pull") != nil)
        }
        #expect(try w.devices.pull(device, signature: "aa").isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func anInstallSeesItsOwnMessagesOnly(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let ann = w.world.user
        try w.world.register(ann, key: "ann-phone", token: .some(apnsToken(1)), at: at(0))
        let phone = try w.install("ann-phone", proof: OwnershipProof(userID: ann.id)).device
        let stranger = try w.install("stranger").device
        let campaign = try w.campaign()
        let own = try w.message(
            to: phone, campaign: campaign,
            questions: [
                ["id": "stars", "text": "Rate us", "type": "rating", "required": true]
            ])
        // A campaign's message to Ann's inbox is hers on every device she is signed in on; her news is not a message.
        let inbox = try w.store.transaction { tx in
            try w.world.notifications.publish(
                NotificationDraft(
                    businessID: w.business.id, userID: ann.id, kind: .campaign, event: "campaign", title: "Inbox",
                    body: "For Ann", campaignID: campaign.id, triggerKey: "launch", message: ["headline": "Inbox"]),
                in: tx, at: at(0))
        }
        let news = try w.world.publish([w.world.draft(ann)])[0]
        #expect(try w.devices.message(phone, id: own.id) != nil)
        #expect(try w.devices.message(phone, id: inbox.id) != nil)
        #expect(try w.devices.message(phone, id: news.id) == nil)
        #expect(try w.devices.message(stranger, id: own.id) == nil)
        #expect(try w.devices.message(stranger, id: inbox.id) == nil)

        // As the SDK reads it: the entry's id and campaign as strings, the survey's questions.
        let message = own.deviceMessage()
        #expect(message.id == String(own.id))
        #expect(message.campaignID == String(campaign.id))
        #expect(message.isSurvey && message.questions.map(\.id) == ["stars"])
        #expect(message.cta?.url == "https://example.com/shop")
        #expect(HeraldMessage(json: message.json) == message)
        // An entry whose stored message isn't one still reads as a plain message.
        #expect(inbox.deviceMessage().headline == "Inbox" && inbox.deviceMessage().body == "For Ann")
    }

    @Test(arguments: StoreBackend.allCases)
    func deletingAnInstallLeavesNothingOfIt(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let ann = w.world.user
        try w.world.register(ann, key: "ann-phone", token: .some(apnsToken(3)), at: at(0))
        let device = try w.install(
            "ann-phone", token: .some(apnsToken(3)), segments: ["vip"], proof: OwnershipProof(userID: ann.id)
        ).device
        let campaign = try w.campaign()
        let message = try w.message(to: device, campaign: campaign)
        let news = try w.world.publish([w.world.draft(ann)])[0]
        try w.deliverAll(at: at(1))
        let results = try w.post(
            [
                DeviceWorld.event(.notificationReceived, message, at: at(2)),
                DeviceWorld.event(.custom, at: at(2), data: DeviceEvent.customData(name: "added_to_cart")),
            ], from: device)
        #expect(results.map(\.status) == [.accepted, .accepted])
        #expect(try w.report(campaign)[.received] == 1)

        try w.devices.delete(device)
        try w.store.read { tx throws in
            #expect(try tx.devices.find(id: device.id) == nil)
            #expect(try tx.devices.find(keyID: device.install!.keyID) == nil)
            #expect(try tx.devices.segments(id: device.id).isEmpty)
            #expect(try tx.deviceEvents.count(deviceID: device.id) == 0)
            #expect(try tx.inbox.find(id: message.id) == nil)
            #expect(try !tx.inbox.hasMilestone(notificationID: message.id, type: "received"))
            #expect(try tx.deliveries.all(notificationID: message.id).isEmpty)
            #expect(try tx.deliveries.all(notificationID: news.id).isEmpty, "no delivery to the device is left")
            #expect(try tx.inbox.find(userID: ann.id, id: news.id) != nil, "Ann's inbox is hers, not the device's")
            #expect(try tx.devices.all(userID: ann.id).isEmpty)
        }
        // What was counted stays counted: reports are aggregates, not the device's data.
        #expect(try w.report(campaign)[.received] == 1)
        #expect(throws: DomainError.notFound("install")) { try w.devices.delete(device) }
    }
}
