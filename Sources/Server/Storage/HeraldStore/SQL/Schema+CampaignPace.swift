extension Schema {
    /// A campaign's pushes answered, counted per ten seconds of answering (`campaign_answers`): what its report's
    /// send rate is read from, by primary key, a few rows whatever the campaign's size. (The `deliveries` rows have
    /// no campaign and no index by answer time, and one would slow every answer.) Numbered apart from the versions
    /// other branches take; any order lands (see `Migration`).
    static let campaignAnswers = Migration(version: 25, name: "campaign_answers") { _ in
        [
            """
            CREATE TABLE campaign_answers (
                campaign_id BIGINT NOT NULL, period_start BIGINT NOT NULL, count BIGINT NOT NULL,
                PRIMARY KEY (campaign_id, period_start))
            """
        ]
    }
}
