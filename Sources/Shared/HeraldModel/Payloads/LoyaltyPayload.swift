/// The event keys of the loyalty pushes Punchh apps read (the payload's `n` and `aps` are added at send time).
///
/// ```swift
/// let keys = LoyaltyPayload.checkin(firstCheckin: false, checkinID: 23573125, points: 12,
///                                   transactionID: "POS_6118542_1487057215", userID: 6118542)
/// // f=0, i=23573125, p=12, t="POS_6118542_1487057215", u=6118542
/// ```
public enum LoyaltyPayload {
    /// A check-in: `f` (1 on the user's first), `i` (check-in id), `p` (points), `t` (transaction id), `u`
    /// (user id), and `s` when a survey follows it.
    public static func checkin(
        firstCheckin: Bool, checkinID: Int64, points: Int64, transactionID: String, userID: Int64,
        userSurveyID: Int64? = nil
    ) -> JSON {
        var keys: [(key: String, value: JSON)] = [
            ("f", .int(firstCheckin ? 1 : 0)), ("i", .int(checkinID)), ("p", .int(points)),
            ("t", .string(transactionID)), ("u", .int(userID)),
        ]
        if let userSurveyID { keys.append(("s", .int(userSurveyID))) }
        return .object(keys)
    }

    /// A survey: `f`, `p`, `u` and `s` (the user survey id the app sends to Fetch User Survey).
    public static func survey(firstCheckin: Bool, points: Int64, userID: Int64, userSurveyID: Int64) -> JSON {
        .object([
            ("f", .int(firstCheckin ? 1 : 0)), ("p", .int(points)), ("u", .int(userID)), ("s", .int(userSurveyID)),
        ])
    }

    /// A redemption processed at the POS: `rd` (the discount applied) and `u`.
    public static func redemption(discount: Money, userID: Int64) -> JSON {
        .object([("rd", discount.json), ("u", .int(userID))])
    }

    /// A gift card's new balance (a background push): `gc`, the gift card's id.
    public static func giftCard(id: Int64) -> JSON {
        .object([("gc", .int(id))])
    }

    /// An offer granted, expiring or converted from points: `r` (the reward id the app redeems) and `u`.
    public static func reward(rewardID: Int64, userID: Int64) -> JSON {
        .object([("r", .int(rewardID)), ("u", .int(userID))])
    }
}
