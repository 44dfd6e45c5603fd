import HeraldSDK
import UIKit

/// Asks for permissions when the user chooses to, and signs the user in and out of Herald with their account.
final class HomeViewController: UIViewController {
    private let account = AccountClient()

    override func viewDidLoad() {
        super.viewDidLoad()
        title = "Coffee"
        view.backgroundColor = .systemBackground
        let stack = UIStackView(arrangedSubviews: [
            button("Allow notifications") { await Herald.requestNotificationPermission() },
            button("Tell me about nearby shops") { await Herald.requestLocationPermission() },
            button("Sign in") { [account] in await Self.signIn(account) },
            button("Sign out") { try? await Herald.logout() },
        ])
        stack.axis = .vertical
        stack.spacing = 16
        stack.translatesAutoresizingMaskIntoConstraints = false
        view.addSubview(stack)
        NSLayoutConstraint.activate([
            stack.centerXAnchor.constraint(equalTo: view.centerXAnchor),
            stack.centerYAnchor.constraint(equalTo: view.centerYAnchor),
        ])
    }

    /// After the app's own login: the backend answers the user's id and the token that vouches for it.
    private static func signIn(_ account: AccountClient) async {
        guard let session = try? await account.logIn() else { return }
        try? await Herald.identify(externalID: session.externalID, identityToken: session.identityToken)
    }

    private func button(_ title: String, _ action: @escaping @Sendable () async -> Void) -> UIButton {
        UIButton(
            configuration: .filled(),
            primaryAction: UIAction(title: title) { _ in Task { await action() } })
    }
}
