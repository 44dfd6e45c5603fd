/// What holds back a credential's pushes on one node (`DeliveryEngine.pacing(businessID:)`).
package enum CredentialPacing: String, Sendable {
    /// Its send quota is spent (an FCM project's per-minute quota): pushes wait for their turn.
    case quota
    /// Its provider sheds load (refusals shrank the window lately) or asked to slow down.
    case provider
    /// It has no credential, or one its provider refused: pushes wait until the operator sets one.
    case credential
}
