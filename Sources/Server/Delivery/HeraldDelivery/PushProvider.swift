import HeraldHTTPClient
import HeraldModel
import HeraldDeliveryPorts

/// Delivers pushes to one service (APNs, FCM, or a recording stand-in in tests).
public protocol PushProvider: Sendable {
    /// The platform this provider serves.
    var platform: PushPlatform { get }
    /// Sends `push`; calls `completion` exactly once, on any thread, quickly. `push` is handed over (consumed), so
    /// a provider keeping it for the answer holds it without a copy of each of its strings.
    func send(_ push: consuming OutgoingPush, completion: @escaping @Sendable (PushResult) -> Void)
    /// Forgets what it cached for `businessID` (tokens, keys) after its credential changed.
    func credentialChanged(businessID: Int64)
    /// Stops: fails queued sends and closes connections.
    func shutdown()
}

/// One push to one device.
public struct OutgoingPush: Sendable {
    /// The delivery job.
    package var deliveryID: Int64
    /// The business whose credential signs it.
    package var businessID: Int64
    /// The device token.
    package var token: String
    /// The `apns-id`, stable across attempts.
    package var apnsID: String
    /// What it says.
    package var content: PushContent
    /// When Apple or Google may drop it if the device stays offline.
    package var expiresAt: Timestamp?
    /// Collapses pushes with the same id into the newest.
    package var collapseID: String?
    /// The attempt number (1 on the first try).
    package var attempt: Int
    /// A campaign's message: the push is its payload (`MessagePush`) rather than `content`'s.
    package var message: HeraldMessage?
    /// For APNs: the device's environment (`sandbox` or `production`: which of Apple's hosts its token is for); nil
    /// when the device did not say, and the business's credential's environment is used.
    package var apnsEnvironment: String?

    /// A push.
    package init(
        deliveryID: Int64, businessID: Int64, token: String, apnsID: String, content: PushContent,
        expiresAt: Timestamp? = nil, collapseID: String? = nil, attempt: Int = 1, message: HeraldMessage? = nil,
        apnsEnvironment: String? = nil
    ) {
        self.message = message
        self.apnsEnvironment = apnsEnvironment
        self.deliveryID = deliveryID
        self.businessID = businessID
        self.token = token
        self.apnsID = apnsID
        self.content = content
        self.expiresAt = expiresAt
        self.collapseID = collapseID
        self.attempt = attempt
    }
}

/// What the service answered, reduced to what Herald does next.
public enum PushResult: Sendable, Equatable {
    /// Accepted; the service's id for it. `apnsEnvironment` names the APNs host that took it when that was not the
    /// one the push was first sent to (the device's token is of the other environment): the device's to remember.
    case delivered(messageID: String?, apnsEnvironment: String? = nil)
    /// Worth trying again (429, 500, 503, UNAVAILABLE, resets, GOAWAY, timeouts), after `retryAfter` if the service said.
    case retryable(reason: String, retryAfter: Duration?)
    /// Refused because the provider sheds load (503, 500, 502, a 429 without `Retry-After`, a stream or connection
    /// reset): worth retrying, and a sign to send fewer of the credential's pushes at once (`CongestionWindow`).
    case shed(reason: String)
    /// Refused for a while for a reason of the credential's that passes and is no push's fault (Apple's
    /// `TooManyProviderTokenUpdates`, another node renewing the provider token): not an attempt; every push of that
    /// credential waits `retryAfter`, then goes with the attempts it had.
    case throttled(reason: String, retryAfter: Duration)
    /// Not sent: this node leases no connection of the fleet's budget for the credential (`ConnectionBudget`). Not
    /// an attempt; it goes back to the queue for a node that leases one, and the credential's next pushes here wait
    /// `retryAfter` before it looks for a slot again.
    case leaseless(retryAfter: Duration)
    /// The token is dead (410 Unregistered, BadDeviceToken, UNREGISTERED, …); `since` is Apple's 410 timestamp.
    case unregistered(reason: String, since: Timestamp?)
    /// The business's credential was refused (403 InvalidProviderToken, bad topic, OAuth refused): the jobs wait.
    /// `version` is the refused credential's (its `updated_at`), when the provider knows which one it sent with:
    /// a refusal of a credential replaced since breaks nothing.
    case credentialRejected(reason: String, version: Timestamp? = nil)
    /// The business has no credential for this service.
    case notConfigured(reason: String)
    /// Never worth retrying (payload too large, other 4xx).
    case failed(reason: String)

    /// A request that got no answer: worth retrying. A connection the provider sent away with `ENHANCE_YOUR_CALM`
    /// asks its sender to slow down, so that answer names a time to come back (`calmDown`): the engine holds every
    /// push of that credential until then, and only that credential's. A stream or connection reset (which includes
    /// a stream refused unprocessed more often than the client sends one again) is the provider shedding load; a
    /// timeout is only slowness, and shrinks nothing.
    package static func transportFailure(_ error: HTTPClientError, calmDown: Duration = .seconds(5)) -> PushResult {
        let calm = error.http2ErrorCode == .enhanceYourCalm
        if calm { return .retryable(reason: "transport: \(error.code) (ENHANCE_YOUR_CALM)", retryAfter: calmDown) }
        if error.code == .connectionReset { return .shed(reason: "transport: \(error.code)") }
        return .retryable(reason: "transport: \(error.code)", retryAfter: nil)
    }

    /// What an HTTP error answer of `status` worth retrying is: a wait of `retryAfter` when the provider named one
    /// (the credential is held until then), else a refusal for load when the status is one a provider sheds with
    /// (500, 502, 503, 429), else a plain retry.
    package static func retry(status: Int, reason: String, retryAfter: Duration?) -> PushResult {
        if retryAfter == nil, status == 429 || status == 500 || status == 502 || status == 503 {
            return .shed(reason: reason)
        }
        return .retryable(reason: reason, retryAfter: retryAfter)
    }

    /// What a provider answers when loading `what` (a business's credential) or making its client failed: not the
    /// provider's refusal, so not the credential's fault. A credential that will not open (`CredentialUnreadable`:
    /// the sealing key changed, the key text is damaged) waits for the operator rather than burn its pushes'
    /// attempts; any other trouble (the database, the HTTP client) passes, so the push is retried.
    package static func unavailable(_ what: String, because error: any Error) -> PushResult {
        error is CredentialUnreadable
            ? .notConfigured(reason: "the \(what) cannot be opened (sealing key changed?)")
            : .retryable(reason: "cannot load the \(what)", retryAfter: nil)
    }

    /// This result, a refusal saying it was of the credential of `version`.
    package func sent(with version: Timestamp) -> PushResult {
        guard case .credentialRejected(let reason, _) = self else { return self }
        return .credentialRejected(reason: reason, version: version)
    }
}

extension OutgoingPush {
    /// The APNs payload this push goes out as: a campaign message's (`MessagePush`), else the content's.
    package var apnsPayload: [UInt8] {
        message.map { MessagePush.apnsPayload(for: $0) } ?? APNsPayload.encode(content)
    }

    /// The FCM request body this push goes out as: a campaign message's (`MessagePush`), else the content's.
    package var fcmBody: [UInt8] {
        message.map { MessagePush.fcmMessage(token: token, for: $0).encoded }
            ?? FCMPayload.encode(token: token, content: content, collapseKey: collapseID)
    }
}

/// A stored credential that cannot be opened or read: thrown by the code that loads credentials for a provider, so
/// that the provider tells it from a passing failure to load one.
package struct CredentialUnreadable: Error, CustomStringConvertible {
    /// What failed (never the secret).
    package var description: String

    /// A credential unreadable because of `underlying`.
    package init(_ underlying: any Error) { description = "credential unreadable: \(underlying)" }
}
