import HeraldModel
import HeraldStore

/// What an operator looks up: a business's users, inbox entries, devices and deliveries. Read only; every
/// lookup stays within the business it names.
package struct DirectoryService: Sendable {
    let store: Store

    /// The service over `store`.
    package init(store: Store) { self.store = store }

    /// A page of `businessID`'s users by id, or the one with `email` (lower-cased) when given.
    package func users(businessID: Int64, email: String?, limit: Int, offset: Int) throws -> [User] {
        try store.read { try $0.users.page(businessID: businessID, email: email, limit: limit, offset: offset) }
    }

    /// A page of `businessID`'s inbox entries, newest first; only `userID`'s when given.
    package func entries(businessID: Int64, userID: Int64?, limit: Int, offset: Int) throws -> [InboxEntry] {
        try store.read { try $0.inbox.page(businessID: businessID, userID: userID, limit: limit, offset: offset) }
    }

    /// A page of the delivery jobs of entry `notificationID`, nil when it is not `businessID`'s.
    package func deliveries(businessID: Int64, notificationID: Int64, limit: Int, offset: Int) throws -> [Delivery]? {
        try store.read { tx in
            guard try tx.inbox.find(businessID: businessID, id: notificationID) != nil else { return nil }
            return try tx.deliveries.all(notificationID: notificationID, limit: limit, offset: offset)
        }
    }

    /// A device found by a lookup: its owner's email and its latest deliveries, newest first.
    package struct FoundDevice: Sendable {
        /// The device.
        package var device: Device
        /// Its user's email, if it has a user.
        package var email: String?
        /// Its latest deliveries.
        package var deliveries: [Delivery]
    }

    /// A page of `businessID`'s devices matching `lookup`, each with up to `deliveries` of its latest deliveries.
    package func devices(businessID: Int64, _ lookup: DeviceLookup, deliveries: Int, limit: Int, offset: Int) throws
        -> [FoundDevice]
    {
        try store.read { tx in
            try tx.devices.lookup(businessID: businessID, lookup, limit: limit, offset: offset).map {
                FoundDevice(
                    device: $0.device, email: $0.email,
                    deliveries: try tx.deliveries.recent(deviceID: $0.device.id, limit: deliveries))
            }
        }
    }
}
