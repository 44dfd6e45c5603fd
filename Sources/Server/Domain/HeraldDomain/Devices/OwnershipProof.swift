import HeraldStore

/// What a registration offers to show it comes from the user a known device belongs to: the user of a valid access
/// token of the business (the Punchh API's), or an external id the business's backend vouched for
/// (`identity_token`, as `PUT /api/v1/device/user` takes it). The device API checks the token or the HMAC; the
/// domain only compares the user it names with the device's.
///
/// ```swift
/// let proof = OwnershipProof(userID: session.userID)         // an access token's user
/// let vouched = OwnershipProof(externalID: "cust-42")         // an identity token's id
/// ```
package struct OwnershipProof: Sendable, Equatable {
    /// The user of a valid access token of the business.
    package var userID: Int64?
    /// An external id the business's backend vouched for.
    package var externalID: String?

    /// A proof naming `userID` and/or `externalID`.
    package init(userID: Int64? = nil, externalID: String? = nil) {
        self.userID = userID
        self.externalID = externalID
    }

    /// True when the proof names `owner`, the user of a device (read through `tx` for its external id).
    func proves(owner: Int64?, businessID: Int64, _ tx: StoreTransaction) throws -> Bool {
        guard let owner else { return false }
        if userID == owner { return true }
        guard let externalID else { return false }
        return try tx.users.find(businessID: businessID, id: owner)?.externalID == externalID
    }
}
