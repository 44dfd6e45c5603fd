import Foundation

/// The app's own backend. At login it answers the user's id in its systems (`external_id`, as the user import knows
/// them) and `identity_token`: the hex HMAC-SHA256 of that id under the business's identity key, which only the
/// backend holds.
struct AccountClient: Sendable {
    struct Session: Decodable, Sendable {
        let externalID: String
        let identityToken: String

        enum CodingKeys: String, CodingKey {
            case externalID = "external_id"
            case identityToken = "identity_token"
        }
    }

    func logIn() async throws -> Session {
        let url = URL(string: "https://api.coffee.example.com/session")!
        let (data, _) = try await URLSession.shared.data(from: url)
        return try JSONDecoder().decode(Session.self, from: data)
    }
}
