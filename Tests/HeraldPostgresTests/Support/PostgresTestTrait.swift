import HeraldTesting
import Testing

/// Runs a suite only when PostgreSQL tests are on (they are unless `HERALD_TEST_POSTGRES=off`); with them on and no
/// `HERALD_TEST_POSTGRES_URL`, each test fails saying how to get a server.
let postgresTests = ConditionTrait.enabled(
    if: !TestPostgres.isOff, "PostgreSQL tests turned off (HERALD_TEST_POSTGRES=off)")
