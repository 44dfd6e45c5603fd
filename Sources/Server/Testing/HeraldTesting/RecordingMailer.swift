import HeraldAPI
import Synchronization

/// A mailer that keeps what it is given, for tests to read (the one-time codes of sign-ups).
///
/// ```swift
/// let mailer = RecordingMailer()
/// let herald = try LiveHerald { $0.mailer = mailer }
/// mailer.sent.last?.body
/// ```
public final class RecordingMailer: Mailer {
    private let mails = Mutex<[Mail]>([])

    /// A mailer with nothing sent.
    public init() {}

    public func send(_ mail: Mail) throws { mails.withLock { $0.append(mail) } }

    /// Everything sent, in order.
    public var sent: [Mail] { mails.withLock { $0 } }

    /// The first run of 8 digits in the last mail to `address` (a sign-up code).
    public func code(to address: String) -> String? {
        guard let body = sent.last(where: { $0.to == address })?.body else { return nil }
        var digits = ""
        for character in body {
            if character.isASCII && character.isNumber {
                digits.append(character)
                if digits.count == 8 { return digits }
            } else {
                digits = ""
            }
        }
        return nil
    }
}
