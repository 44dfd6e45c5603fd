import HeraldModel
import HeraldStore

/// Which user an SDK install belongs to (`Herald.identify` and `Herald.logout`): the user with an `external_id`, as the
/// user import matches them, so their attributes and segments reach the install and messages to them reach it, until
/// the install is told it belongs to nobody. Each operation is one transaction.
///
/// ```swift
/// let identities = DeviceIdentityService(store: store, clock: .system)
/// let linked = try identities.identify(device, externalID: "cust-42")   // the user made if the import hasn't yet
/// try identities.forget(linked)                                        // messages to cust-42 stop reaching it
/// ```
///
/// Trust is the caller's: an install may claim any id, so the device API takes one only with the business backend's
/// proof (`identity_token`, checked before this runs). A user that doesn't exist yet is made with the id alone — no
/// email, no password, no attributes — and a later import or sign-up of the same id fills it in.
package struct DeviceIdentityService: Sendable {
    let store: Store
    let clock: WallClock

    /// The service over `store`.
    package init(store: Store, clock: WallClock) {
        self.store = store
        self.clock = clock
    }

    /// Links `device` to the user of its business with `externalID`, made when there is none; answers the device as
    /// written. Not found when the install was deleted or replaced meanwhile.
    package func identify(_ device: Device, externalID: String) throws -> Device {
        let now = clock.now()
        var attempts = 0
        while true {
            do {
                return try store.transaction { tx in
                    var current = try current(device, tx)
                    let user =
                        try tx.users.find(businessID: device.businessID, externalIDs: [externalID]).first
                        ?? tx.users.insertImported(
                            businessID: device.businessID, externalID: externalID, email: nil, firstName: "",
                            lastName: "", attributes: .object([]), at: now)
                    guard current.userID != user.id else { return current }
                    current.userID = user.id
                    current.updatedAt = now
                    try tx.devices.save(current)
                    return current
                }
            } catch let error as StoreError where (error.code == .conflict || error.code == .retryable) && attempts < 3
            {
                // Another install made the same user a moment before: it exists now.
                attempts += 1
            }
        }
    }

    /// Unlinks `device` from its user: messages to the user stop reaching it. Answers the device as written.
    package func forget(_ device: Device) throws -> Device {
        let now = clock.now()
        return try store.transaction { tx in
            var current = try current(device, tx)
            guard current.userID != nil else { return current }
            current.userID = nil
            current.updatedAt = now
            try tx.devices.save(current)
            return current
        }
    }

    /// The install `device` as stored, locked; not found when it is gone or another record took its id.
    private func current(_ device: Device, _ tx: StoreTransaction) throws -> Device {
        guard let current = try tx.devices.lock(businessID: device.businessID, key: device.deviceKey),
            current.id == device.id, current.install != nil
        else { throw DomainError.notFound("install") }
        return current
    }

    /// The external id of the user `device` belongs to, if it belongs to one that has an id.
    package func externalID(of device: Device) throws -> String? {
        guard let userID = device.userID else { return nil }
        return try store.read { try $0.users.find(businessID: device.businessID, id: userID)?.externalID }
    }
}
