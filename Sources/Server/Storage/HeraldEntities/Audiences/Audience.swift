/// Whom a campaign reaches: every device of the business, the devices of some users, or the devices a segment
/// filter selects (`AudienceRecords` evaluates it in the database).
package enum Audience: Sendable, Equatable {
    /// Every device of the business.
    case all
    /// The devices of these users (ids of other businesses' users match nothing).
    case userIDs([Int64])
    /// The devices the filter selects.
    case segment(SegmentFilter)
}
