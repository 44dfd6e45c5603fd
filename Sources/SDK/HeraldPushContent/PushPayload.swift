import Foundation
import HeraldModel

/// Between the system's push dictionaries and `JSON`: a notification's `userInfo` in, a local notification's
/// `userInfo` out.
public enum PushPayload {
    /// A notification's `userInfo` as JSON (keys as strings); nil when it isn't a JSON object.
    public static func json(fromUserInfo userInfo: [AnyHashable: Any]) -> JSON? {
        var dictionary: [String: Any] = [:]
        for (key, value) in userInfo { dictionary["\(key)"] = value }
        guard JSONSerialization.isValidJSONObject(dictionary),
            let data = try? JSONSerialization.data(withJSONObject: dictionary)
        else { return nil }
        return try? JSON.parse([UInt8](data))
    }

    /// `json` as Foundation objects, for a local notification's `userInfo`; nil unless an object.
    public static func userInfo(from json: JSON) -> [String: Any]? {
        guard json.objectValue != nil,
            let object = try? JSONSerialization.jsonObject(with: Data(json.encoded)) as? [String: Any]
        else { return nil }
        return object
    }

    /// The key marking a notification the SDK posted itself (`"herald_local": true`).
    public static let postedLocallyKey = "herald_local"

    /// The `userInfo` of the system notification the SDK posts for `message`: the same `herald` object a push
    /// carries, so tapping it comes back through `handlePush` like a push does, and the mark `herald_local`, so the
    /// SDK tells it from a push when iOS asks how to show it.
    public static func userInfo(for message: HeraldMessage) -> [String: Any] {
        userInfo(
            from: .object([
                (MessagePush.key, MessagePush(id: message.id, message: message).json), (postedLocallyKey, .bool(true)),
            ])) ?? [:]
    }
}
