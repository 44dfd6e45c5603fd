/// What `HeraldClient.handlePush` did with a notification.
public enum PushHandling: Sendable, Equatable {
    /// Not a Herald push (no `herald` key): the app handles it.
    case notHerald
    /// Handled through the arrival path.
    case handled(ArrivalOutcome)
    /// A Herald push whose message was left out and could not be fetched (offline); it comes by pull later.
    case unavailable(HeraldError)
}
