import HeraldModel

/// Something a business gives its users: a discount or a free item, shown on the offer-details screen.
package struct Offer: Sendable, Equatable {
    /// Store id.
    package var id: Int64
    /// Owning business.
    package var businessID: Int64
    /// Name ("Free Fries").
    package var name: String
    /// What it is, for the details screen.
    package var description: String
    /// The offer's picture (https or Herald's media URL).
    package var imageURL: String?
    /// Rich media for its push.
    package var media: MediaAttachment?
    /// The discount applied when it is redeemed (in the business's currency).
    package var discount: Money
    /// Grants and redemptions are possible from…
    package var availableFrom: Timestamp?
    /// …until.
    package var availableUntil: Timestamp?
    /// Every grant expires at this time (if set)…
    package var expiresAt: Timestamp?
    /// …or this many seconds after it was granted (if set; the earlier of the two applies).
    package var validForSeconds: Int64?
    /// When it was created.
    package var createdAt: Timestamp

    /// An offer record.
    package init(
        id: Int64, businessID: Int64, name: String, description: String, imageURL: String?, media: MediaAttachment?,
        discount: Money, availableFrom: Timestamp?, availableUntil: Timestamp?, expiresAt: Timestamp?,
        validForSeconds: Int64?, createdAt: Timestamp
    ) {
        self.id = id
        self.businessID = businessID
        self.name = name
        self.description = description
        self.imageURL = imageURL
        self.media = media
        self.discount = discount
        self.availableFrom = availableFrom
        self.availableUntil = availableUntil
        self.expiresAt = expiresAt
        self.validForSeconds = validForSeconds
        self.createdAt = createdAt
    }

}

/// An offer granted to one user (Punchh's "reward").
package struct Reward: Sendable, Equatable {
    /// Store id: the `reward_id` the app redeems.
    package var id: Int64
    /// Owning business.
    package var businessID: Int64
    /// Holder.
    package var userID: Int64
    /// What was granted.
    package var offerID: Int64
    /// Why it was granted: `welcome_offer`, `campaign_offer`, `points_to_reward`.
    package var source: String
    /// When.
    package var grantedAt: Timestamp
    /// When it stops being redeemable.
    package var expiresAt: Timestamp?
    /// When the user read it (`mark_read`'s `rewards`).
    package var readAt: Timestamp?
    /// The code the app shows the POS, once asked for.
    package var redemptionCode: String?
    /// When the POS honoured it.
    package var redeemedAt: Timestamp?
    /// When its expiry reminder went out.
    package var reminderSentAt: Timestamp?
    /// The inbox entry announcing it.
    package var notificationID: Int64?

    /// A reward record.
    package init(
        id: Int64, businessID: Int64, userID: Int64, offerID: Int64, source: String, grantedAt: Timestamp,
        expiresAt: Timestamp?, readAt: Timestamp? = nil, redemptionCode: String? = nil, redeemedAt: Timestamp? = nil,
        reminderSentAt: Timestamp? = nil, notificationID: Int64? = nil
    ) {
        self.id = id
        self.businessID = businessID
        self.userID = userID
        self.offerID = offerID
        self.source = source
        self.grantedAt = grantedAt
        self.expiresAt = expiresAt
        self.readAt = readAt
        self.redemptionCode = redemptionCode
        self.redeemedAt = redeemedAt
        self.reminderSentAt = reminderSentAt
        self.notificationID = notificationID
    }
}
