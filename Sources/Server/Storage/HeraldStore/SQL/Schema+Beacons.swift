extension Schema {
    /// The beacons at a business's locations, as Punchh apps report them: `beacon_major` is the business (its id),
    /// `beacon_minor` one beacon of one location (a location may have several).
    static let locationBeacons = Migration(version: 12, name: "location_beacons") { _ in
        [
            """
            CREATE TABLE location_beacons (
                business_id BIGINT NOT NULL REFERENCES businesses(id), minor BIGINT NOT NULL,
                location_id BIGINT NOT NULL REFERENCES locations(id), PRIMARY KEY (business_id, minor))
            """
        ]
    }
}
