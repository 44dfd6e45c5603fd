import HeraldModel
import HeraldStore

/// A sandbox install's standing as a test device: `pending` until an admin approves its code, then `approved`
/// while it keeps being used (unused for `lapse`, it is pending again). Only approved ones get sandbox messages.
package struct TestDeviceStanding: Sendable, Equatable {
    /// `pending` or `approved`.
    package var status: String
    /// The code the app shows and the admin approves (`POST …/test-devices`), unique in its business.
    package var approvalCode: String

    /// A standing.
    package init(status: String, approvalCode: String) {
        self.status = status
        self.approvalCode = approvalCode
    }

    /// Waiting for approval.
    package static let pending = "pending"
    /// Approved: sandbox campaigns reach it.
    package static let approved = "approved"

    /// True when approved.
    package var isApproved: Bool { status == Self.approved }

    /// `{"status","approval_code"}`.
    package var json: JSON { .object([("status", .string(status)), ("approval_code", .string(approvalCode))]) }

    /// The standing of `device` at `now`: nil unless it is a sandbox install; an approval unused since
    /// `now - lapse` counts as pending.
    package static func of(_ device: Device, at now: Timestamp, lapse: Duration) -> TestDeviceStanding? {
        guard let install = device.install, install.workspace == .sandbox, let code = install.approvalCode else {
            return nil
        }
        let approved =
            install.testStatus == approved
            && (install.lastSeenAt ?? Timestamp(milliseconds: 0)) >= now.adding(.zero - lapse)
        return TestDeviceStanding(status: approved ? Self.approved : pending, approvalCode: code)
    }
}

/// Approval codes: 8 characters from an alphabet without look-alikes (no 0/O, 1/I/L), easy to read aloud and
/// type: about 8.5 × 10¹¹ codes.
package enum ApprovalCode {
    /// The characters codes are made of.
    package static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    /// How long a code is.
    package static let length = 8

    /// A random code (the system's generator).
    @Sendable package static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// Whether `text` could be a code (the admin API's check before looking it up).
    package static func isWellFormed(_ text: String) -> Bool {
        text.count == length && text.allSatisfy { alphabet.contains($0) }
    }
}
