import HeraldObservability

/// Where Herald's mail goes: for now the one-time code that proves a sign-up owns an imported customer's email
/// (`EmailProof`). One method, so that an SMTP relay or a provider's API can stand in; the default, `LogMailer`,
/// writes the mail to the log — for development and for operators who forward that log line themselves.
///
/// ```swift
/// try mailer.send(Mail(to: "ann@example.com", subject: "Your code", body: "12345678"))
/// ```
package protocol Mailer: Sendable {
    /// Sends `mail`, or throws saying why it could not.
    func send(_ mail: Mail) throws
}

/// One message.
public struct Mail: Sendable, Equatable {
    /// The recipient's address.
    package var to: String
    /// The subject line.
    package var subject: String
    /// The plain-text body.
    package var body: String

    /// A message to `to`.
    package init(to: String, subject: String, body: String) {
        self.to = to
        self.subject = subject
        self.body = body
    }
}

/// Writes each mail to the log at notice (`mail.to`, `mail.subject`, `mail.body`): the default mailer. The body
/// carries the one-time code, so a log kept by this mailer is as sensitive as the mailbox it stands in for.
package struct LogMailer: Mailer {
    let logger: Logger

    /// A mailer writing to `logger`.
    package init(logger: Logger) { self.logger = logger }

    package func send(_ mail: Mail) throws {
        logger.notice(
            "mail (log mailer: not sent)", ["mail.to": mail.to, "mail.subject": mail.subject, "mail.body": mail.body])
    }
}
