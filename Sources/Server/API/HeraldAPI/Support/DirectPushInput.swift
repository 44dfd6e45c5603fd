import HeraldDomain
import HeraldHTTPServer
import HeraldModel

/// What the admin API accepts as a push to raw device tokens: `{"platform","tokens","title","body","subtitle"?,
/// "data"?}`, every field checked, all problems answered at once.
enum DirectPushInput {
    /// The push `body` describes; 422 with every problem otherwise.
    static func push(_ body: JSON) throws -> DirectPush {
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: ["platform", "tokens", "title", "subtitle", "body", "data"], prefix: "")
        var platform: PushPlatform?
        switch body["platform"]?.stringValue {
        case "apns", "ios": platform = .apns
        case "fcm", "android": platform = .fcm
        default: errors.add("platform", "must be apns or fcm")
        }
        var tokens: [String] = []
        if let list = body["tokens"]?.arrayValue, (1...1000).contains(list.count) {
            for (index, value) in list.enumerated() {
                guard let token = value.stringValue, isToken(token, platform: platform) else {
                    errors.add(
                        "tokens[\(index)]",
                        platform == .fcm
                            ? "must be an FCM registration token"
                            : "must be an APNs device token (hex, at least 64 digits)")
                    continue
                }
                if !tokens.contains(token) { tokens.append(token) }
            }
        } else {
            errors.add("tokens", "must be a list of 1 to 1000 device tokens")
        }
        let title = AdminInput.requiredString(body, "title", max: 500, &errors)
        let text = AdminInput.requiredString(body, "body", max: 2000, &errors, shape: .paragraph)
        let subtitle = AdminInput.optionalString(body, "subtitle", &errors)
        var data = JSON.object([])
        if let value = body["data"], !value.isNull {
            if let pairs = value.objectValue,
                pairs.allSatisfy({ !["aps", "n"].contains($0.key) && $0.value.stringValue != nil })
            {
                data = value
            } else {
                errors.add("data", "must be an object of string values (not aps or n)")
            }
        }
        try errors.check()
        return DirectPush(
            platform: platform!, tokens: tokens, title: title!, subtitle: subtitle, body: text!, data: data)
    }

    /// A device token's form: an FCM registration token (printable, at most 4096 bytes), else an APNs token (hex).
    static func isToken(_ token: String, platform: PushPlatform?) -> Bool {
        if platform == .fcm {
            return (1...4096).contains(token.utf8.count) && !token.utf8.contains { $0 <= 0x20 || $0 >= 0x7F }
        }
        return token.utf8.count >= 64 && token.utf8.count <= 200 && token.utf8.count % 2 == 0
            && token.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0)
            }
    }
}
