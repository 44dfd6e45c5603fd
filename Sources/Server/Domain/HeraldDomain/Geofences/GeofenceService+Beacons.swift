import HeraldModel
import HeraldStore

/// Beacons, for apps of Punchh's mobile API: their beacon entry and exit calls are visits of the geofences drawn
/// around the beacon's location, so one geofence campaign reaches SDK installs (by their geofence events) and
/// Punchh apps (by their beacons) alike.
extension GeofenceService {
    /// A beacon visit as a Punchh app reports it.
    package struct BeaconVisit: Sendable {
        /// `enter` (the beacon came in range) or `exit` (it went out of range).
        package var event: String
        /// The beacon's minor: one beacon of one of the business's locations.
        package var beaconMinor: Int64
        /// The signed-in user.
        package var userID: Int64
        /// The device their session was made on, if it named one.
        package var deviceID: Int64?

        /// A visit.
        package init(event: String, beaconMinor: Int64, userID: Int64, deviceID: Int64?) {
            self.event = event
            self.beaconMinor = beaconMinor
            self.userID = userID
            self.deviceID = deviceID
        }
    }

    /// Records a beacon visit of `business`'s user: for each running geofence campaign (not a sandbox one) on a
    /// geofence drawn around the beacon's location and on this event, whose audience reaches the user's device and
    /// whose cooldown, most per user and frequency cap allow it, the user gets the campaign's message as Punchh
    /// apps get campaigns — their entry pushed to that device (a survey campaign's with `s`, an offer campaign's
    /// with the reward) — now, or when the device's quiet hours end. Not found on `beacon_minor` when the business
    /// has no such beacon. Returns the entries written.
    @discardableResult
    package func visit(_ visit: BeaconVisit, business: Business) throws -> [InboxEntry] {
        let now = clock.now()
        return try store.transaction { tx in
            guard let location = try tx.locations.find(businessID: business.id, beaconMinor: visit.beaconMinor) else {
                throw DomainError(.notFound, field: "beacon_minor", "beacon not found")
            }
            let geofences = Set(try tx.geofences.ids(businessID: business.id, locationID: location.id))
            guard !geofences.isEmpty, let device = try device(of: visit, in: tx) else { return [] }
            var written: [InboxEntry] = []
            for var triggered in try campaigns(
                triggeredBy: visit.event, at: geofences, device: device, business: business, sandbox: false, in: tx,
                now: now)
            {
                let campaign = triggered.campaign
                triggered.writer.visitLocationID = location.id
                let key = "beacon:\(visit.event):\(location.id):\(now.milliseconds)"
                let sent = try triggered.writer.send(to: [(triggered.target, triggered.due)], triggerKey: key)
                try tx.campaigns.count(.targeted, campaignID: campaign.id)
                try tx.campaigns.count(.sent, by: Int64(sent), campaignID: campaign.id)
                if let entry = try tx.campaigns.userEntry(
                    campaignID: campaign.id, userID: visit.userID, triggerKey: key)
                {
                    written.append(entry)
                }
            }
            return written
        }
    }

    /// The device a beacon visit came from: the one the session was made on, else the user's most recently
    /// updated one.
    private func device(of visit: BeaconVisit, in tx: StoreTransaction) throws -> Device? {
        if let id = visit.deviceID, let device = try tx.devices.find(id: id), device.userID == visit.userID {
            return device
        }
        return try tx.devices.all(userID: visit.userID).max { $0.updatedAt < $1.updatedAt }
    }
}
