import HeraldSDK
import SwiftUI

/// Asks for permissions when the user chooses to, and signs the user in and out of Herald with their account.
struct ContentView: View {
    @State private var signedIn = false

    var body: some View {
        NavigationStack {
            VStack(spacing: 16) {
                Button("Allow notifications") {
                    Task { await Herald.requestNotificationPermission() }
                }
                Button("Tell me about nearby shops") {
                    Task { await Herald.requestLocationPermission() }
                }
                if signedIn {
                    Button("Sign out") {
                        Task {
                            try? await Herald.logout()
                            signedIn = false
                        }
                    }
                } else {
                    Button("Sign in") {
                        Task { signedIn = await signIn() }
                    }
                }
            }
            .buttonStyle(.borderedProminent)
            .navigationTitle("Coffee")
        }
    }

    /// After the app's own login, its backend answers `{"external_id","identity_token"}`: the user's id as the user
    /// import knows them, and the hex HMAC-SHA256 of it under the business's identity key (which only the backend
    /// holds).
    private func signIn() async -> Bool {
        let url = URL(string: "https://api.coffee.example.com/session")!
        guard let (data, _) = try? await URLSession.shared.data(from: url),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: String],
            let externalID = object["external_id"], let token = object["identity_token"]
        else { return false }
        do {
            try await Herald.identify(externalID: externalID, identityToken: token)
            return true
        } catch {
            return false
        }
    }
}
