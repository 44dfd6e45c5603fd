import Dispatch
import HeraldDomain
import HeraldModel
import HeraldStore
import HeraldTesting
import Synchronization
import Testing

@Suite("Domain conformance: install identity")
struct DeviceIdentityServiceTests {
    @Test(arguments: StoreBackend.allCases)
    func anInstallBelongsToTheUserWithTheExternalIDUntilItIsForgotten(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let identities = DeviceIdentityService(store: w.store, clock: w.world.clock.wallClock)
        let importer = UserImporter(store: w.store, clock: w.world.clock.wallClock)
        _ = try importer.importBatch(
            [ImportedUser(line: 1, externalID: "crm-ann", email: "ann@example.com", attributes: [("tier", "gold")])],
            businessID: w.business.id)
        let ann = try #require(
            try w.store.read { try $0.users.find(businessID: w.business.id, externalIDs: ["crm-ann"]) }.first)
        let device = try w.install("install-1").device

        w.world.clock.set(at(5))
        let linked = try identities.identify(device, externalID: "crm-ann")
        #expect(linked.userID == ann.id && linked.updatedAt == at(5))
        #expect(try w.reload(device)?.userID == ann.id)
        #expect(try identities.externalID(of: linked) == "crm-ann")
        #expect(try identities.identify(linked, externalID: "crm-ann") == linked, "the same user: nothing written")

        // An id nobody has yet: the user is made with it alone, and the import fills it in later.
        let moved = try identities.identify(linked, externalID: "crm-new")
        let made = try #require(
            try w.store.read { try $0.users.find(businessID: w.business.id, externalIDs: ["crm-new"]) }.first)
        #expect(moved.userID == made.id && made.email == nil && made.firstName.isEmpty)
        let result = try importer.importBatch(
            [ImportedUser(line: 1, externalID: "crm-new", email: "new@example.com", firstName: "Neo")],
            businessID: w.business.id)
        #expect(result.created == 0 && result.updated == 1)

        let forgotten = try identities.forget(moved)
        #expect(forgotten.userID == nil)
        #expect(try w.reload(device)?.userID == nil)
        #expect(try identities.externalID(of: forgotten) == nil)
        #expect(try identities.forget(forgotten) == forgotten)

        // The same id registered again, unsigned, is another install; a deleted one is identified no more.
        #expect(try w.install("install-1").device.id != device.id)
        #expect(try identities.forget(forgotten) == forgotten)
        try w.devices.delete(forgotten)
        #expect(throws: DomainError.notFound("install")) { try identities.identify(device, externalID: "crm-ann") }
        #expect(throws: DomainError.notFound("install")) { try identities.forget(device) }
    }

    @Test(arguments: StoreBackend.allCases)
    func installsIdentifyingAsANewIdAtOnceShareOneUser(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let identities = DeviceIdentityService(store: w.store, clock: w.world.clock.wallClock)
        let devices = try (0..<4).map { try w.install("install-\($0)").device }
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: devices.count) { index in
            do {
                _ = try identities.identify(devices[index], externalID: "crm-race")
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        let users = Set(try devices.map { try #require(try w.reload($0)?.userID) })
        #expect(users.count == 1)
    }

    @Test(
        .bug(id: "issue-40-2", "an install of nobody is taken over through the mobile API by knowing its id"),
        arguments: StoreBackend.allCases)
    func anInstallOfNobodyBecomesAUsersOnlyThroughItsOwnCredential(_ backend: StoreBackend) throws {
        let w = try DeviceWorld(backend)
        let eve = try w.world.addUser("eve@example.com")
        let install = try w.install("victim", token: .some(apnsToken(1))).device
        // The mobile API naming the install's key, with a token of the caller's own or none: a record of the
        // caller's own; the install stays nobody's, with its token and credential.
        for token: String?? in [nil, .some(apnsToken(2)), .some(nil)] {
            let own = try w.world.register(eve, key: "victim", token: token)
            #expect(own.id != install.id && own.userID == eve.id)
        }
        let kept = try #require(try w.reload(install))
        #expect(kept.userID == nil && kept.token == apnsToken(1) && kept.install?.keyID == install.install?.keyID)
        // So Eve's access token proves nothing about it.
        #expect(try w.install("victim", proof: OwnershipProof(userID: eve.id)).outcome == .separated)

        // Identified through its own credential, it is that user's: the mobile API's calls as them reach it, and
        // their access token gives it back.
        let identities = DeviceIdentityService(store: w.store, clock: w.world.clock.wallClock)
        let linked = try identities.identify(kept, externalID: "crm-cy")
        let cy = try #require(try w.store.read { try $0.users.find(businessID: w.business.id, id: linked.userID!) })
        #expect(try w.world.register(cy, key: "victim", token: .some(apnsToken(3))).id == install.id)
        #expect(try w.install("victim", proof: OwnershipProof(userID: cy.id)).outcome == .reclaimed)
    }
}
