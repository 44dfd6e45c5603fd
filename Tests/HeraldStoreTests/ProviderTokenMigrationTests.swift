import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// Migration 32 keeps the provider tokens by signer: the rows stored by business move over, so the token Apple
/// accepted last is still the one sent with after the upgrade.
@Suite("Migrations: provider tokens by key")
struct ProviderTokenMigrationTests {
    @Test(arguments: UniqueKeyTests.Backend.allCases)
    func theTokensStoredByBusinessMoveOver(_ backend: UniqueKeyTests.Backend) throws {
        let (database, directory) = try backend.make()
        defer { _ = directory }
        try Migrator.migrate(database, Schema.migrations.filter { $0.version < 32 }, at: 0)
        let business = try database.write { db in
            let business = try db.scalar(
                "INSERT INTO businesses (name, client_id, sealed_secret, pos_key_hash, settings, created_at) VALUES ('B', 'c', \([UInt8]()), 'p', '{}', 0) RETURNING id"
            )
            try db.execute(
                "INSERT INTO provider_tokens (business_id, platform, credential_version, sealed_token, issued_at, expires_at) VALUES (\(business), 'apns', 5, \([UInt8]([1, 2, 3])), 10, 20)"
            )
            // A lease with no token yet moves nowhere.
            try db.execute(
                "INSERT INTO provider_tokens (business_id, platform, credential_version, issued_at, expires_at, renewing_owner, renewing_until) VALUES (\(business), 'fcm', 0, 0, 0, 'node', 99)"
            )
            return business
        }
        #expect(try Migrator.migrate(database, Schema.migrations, at: 0).contains(32))
        let store = try Store(database: database)
        let signer = ProviderTokenRecords.signer(businessID: business)
        #expect(
            try store.read { try $0.providerTokens.find(signer: signer, platform: .apns) }
                == StoredProviderToken(
                    sealedToken: [1, 2, 3], credentialVersion: Timestamp(milliseconds: 5),
                    issuedAt: Timestamp(milliseconds: 10), expiresAt: Timestamp(milliseconds: 20)))
        #expect(try store.read { try $0.providerTokens.find(signer: signer, platform: .fcm) } == nil)
        #expect(
            try store.transaction {
                try $0.providerTokens.beginRenewal(
                    signer: signer, platform: .fcm, owner: "other", until: Timestamp(milliseconds: 50),
                    at: Timestamp(milliseconds: 40))
            }, "the old lease did not move over")
    }
}
