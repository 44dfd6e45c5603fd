import Foundation

/// The SDK's API as its sources declare it — type names, member names, and each function's argument labels — and a
/// reader of the names a text uses: capitalised names, `Type.member`, calls `name(label: …)` and references
/// `name(label:label:)`. What it finds that neither the sources nor the list of Apple's and Swift's names declare is a
/// name that doesn't exist (the guide's `live(storage:)`, `handleNotificationResponse` of earlier days).
struct APINameIndex {
    /// A function's external labels (`_` for none) and which may be left out (defaulted).
    struct Signature: CustomStringConvertible {
        let labels: [String]
        let defaulted: [Bool]

        /// True when `used` (in order) can call it: each label used is one of its own, in its order, and no label
        /// without a default is left out. `nil` labels (a reference without parentheses) always can.
        func accepts(_ used: [String]) -> Bool {
            var index = 0
            for label in used {
                while index < labels.count, labels[index] != label {
                    if !defaulted[index] && labels[index] != "_" { return false }
                    index += 1
                }
                guard index < labels.count else { return false }
                index += 1
            }
            return labels[index...].indices.allSatisfy { defaulted[$0] || labels[$0] == "_" }
        }

        var description: String { "(" + labels.map { $0 + ":" }.joined() + ")" }
    }

    private(set) var types: Set<String> = []
    private(set) var members: Set<String> = []
    private(set) var functions: [String: [Signature]] = [:]

    /// Apple's, Swift's, Foundation's and Android's names the guide and the doc comments may use.
    static let external: Set<String> = [
        // Swift and Foundation.
        "Bool", "Data", "Double", "Duration", "Error", "Int", "Int64", "MainActor", "Sendable", "String", "Task",
        "URL", "URLSession", "UUID", "Void", "Any", "Self", "Foundation", "FoundationNetworking", "JSONDecoder",
        "Codable", "Decodable", "CheckedContinuation", "Result", "Array", "Set", "Optional", "Swift", "NSLock",
        "FileManager", "UInt8", "UInt64", "Character", "Substring", "Mutex", "Synchronization", "Observation",
        "Observable", "Atomic", "Linux", "Xcode", "Mac", "App", "Store", "Connect", "RFC", "ISO", "OpenSSL",
        // UIKit, SwiftUI, UserNotifications, CoreLocation, Security.
        "UIApplication", "UIApplicationDelegate", "UIResponder", "UIScene", "UISceneSession", "UIWindowScene",
        "UIViewController", "UIDevice", "UIKit", "UIApplicationDelegateAdaptor", "SwiftUI", "Scene", "WindowGroup",
        "View", "UNUserNotificationCenter", "UNUserNotificationCenterDelegate", "UNNotification",
        "UNNotificationResponse", "UNNotificationPresentationOptions", "UNNotificationServiceExtension",
        "UNNotificationAttachment", "UNNotificationCategory", "UNNotificationAction", "UNMutableNotificationContent",
        "UNNotificationDefaultActionIdentifier", "UNNotificationDismissActionIdentifier", "UNAuthorizationStatus",
        "UserNotifications", "CoreLocation", "CLLocationManager", "CLCircularRegion", "CLMonitor", "CLServiceSession",
        "WebKit", "WKWebView", "WKNavigationDelegate", "WKUIDelegate", "WKScriptMessageHandler", "WKNavigationAction",
        "WKScriptMessage", "Security", "Info", "LaunchOptionsKey", "Application", "Support", "Keychain",
        "Notification", "Name", "NotificationCenter", "Bundle",
        // Android.
        "Android", "FirebaseMessaging", "FirebaseMessagingService", "NotificationCompat", "Builder", "WebView",
        "OkHttp", "Ktor", "Keystore", "EncryptedSharedPreferences", "Mac", "POST_NOTIFICATIONS", "HmacSHA256",
        "RemoteMessage",
        // Apple's functions, named in prose.
        "application", "userNotificationCenter", "registerForRemoteNotifications", "requestLocation",
        "requestAlwaysAuthorization", "setBadgeCount", "getInstance", "token", "onNewToken", "onMessageReceived",
        "print", "open", "data", "jsonObject", "decode", "locationManager", "scene", "init", "body",
        "didRegisterForRemoteNotificationsWithDeviceToken", "didFailToRegisterForRemoteNotificationsWithError",
        "applicationDidBecomeActive", "withUnsafeBufferPointer", "ContentView", "CoffeeApp", "AppDelegate",
        "NotificationService", "CoffeeKit", "Package", "Gold", "Herald", "HERALD_IDENTITY_KEY", "hasPrefix",
        "current", "Date", "BadDeviceToken", "NSLocationWhenInUseUsageDescription",
        "NSLocationAlwaysAndWhenInUseUsageDescription", "UIBackgroundModes",
        "GET", "POST", "PUT", "DELETE", "ETag", "Entitlements",
        // The card's web side: JavaScript and CSS.
        "postMessage", "rgb", "rgba", "hsl",
        // The package's modules.
        "HeraldSDK", "HeraldModel", "HeraldPushContent", "HeraldServiceExtension", "HeraldNotificationService",
    ]

    /// The declarations of the Swift files under `directories` (or of a file named among them).
    init(sources directories: [URL]) throws {
        for directory in directories {
            if directory.pathExtension == "swift" {
                read(Self.blankingStrings(try String(contentsOf: directory, encoding: .utf8)))
                continue
            }
            guard let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
                continue
            }
            for case let file as URL in files where file.pathExtension == "swift" {
                read(Self.blankingStrings(try String(contentsOf: file, encoding: .utf8)))
            }
        }
    }

    /// True for an inline code span that may name Swift API: not a path, an HTTP call, a header, a JSON key or a
    /// phrase (`POST /api/v1/events`, `X-Herald-Key-Id`, `"mutable-content":1`, `Sandbox · `).
    static func mayNameAPI(_ span: String) -> Bool {
        guard span.unicodeScalars.allSatisfy(\.isASCII) || span.contains("(") else { return false }
        if span.contains("/") || span.contains("-") || span.contains("{") || span.contains("\"") { return false }
        if span.first?.isUppercase == true, span.allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "_" }) {
            return false  // an environment variable (HERALD_IOS_SDK)
        }
        if ["swift", "plist", "md", "json", "entitlements", "mobileprovision"].contains(where: {
            span.hasSuffix("." + $0)
        }) {
            return false  // a file
        }
        return !span.contains(" ") || span.contains("(")
    }

    /// The groups of each match of `pattern` (ICU's syntax, lookbehind included) and where the match ends.
    static func matches(_ pattern: String, in text: String) -> [(groups: [String?], end: String.Index)] {
        let expression = try! NSRegularExpression(pattern: pattern)
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            let groups = (1..<match.numberOfRanges).map { index in
                Range(match.range(at: index), in: text).map { String(text[$0]) }
            }
            return (groups, Range(match.range, in: text)!.upperBound)
        }
    }

    private mutating func read(_ source: String) {
        for match in Self.matches(#"\b(?:class|struct|enum|protocol|actor|typealias|extension)\s+(\w+)"#, in: source) {
            types.insert(match.groups[0]!)
        }
        for match in Self.matches(#"\b(?:var|let|case)\s+(\w+)"#, in: source) { members.insert(match.groups[0]!) }
        for match in Self.matches(#"\bcase\s+\w+(?:\([^)]*\))?((?:\s*,\s*\w+)+)"#, in: source) {
            for extra in (match.groups[0] ?? "").split(separator: ",") {
                members.insert(extra.trimmingCharacters(in: .whitespaces))
            }
        }
        for match in Self.matches(#"\bfunc\s+(\w+)\s*(?:<[^>{]*>)?\("#, in: source) {
            let name = match.groups[0]!
            members.insert(name)
            guard let parameters = Self.balanced(source, from: source.index(before: match.end)) else { continue }
            functions[name, default: []].append(Self.signature(parameters))
        }
    }

    /// The text inside the parentheses opening at `open`.
    static func balanced(_ text: String, from open: String.Index) -> Substring? {
        var depth = 0
        var index = open
        while index < text.endIndex {
            switch text[index] {
            case "(", "[": depth += 1
            case ")", "]":
                depth -= 1
                if depth == 0 { return text[text.index(after: open)..<index] }
            default: break
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// Splits at the commas outside brackets and parentheses.
    static func topLevel(_ text: Substring) -> [Substring] {
        var parts: [Substring] = []
        var depth = 0
        var start = text.startIndex
        for index in text.indices {
            switch text[index] {
            case "(", "[", "<", "{": depth += 1
            case ")", "]", ">", "}": depth -= 1
            case "," where depth == 0:
                parts.append(text[start..<index])
                start = text.index(after: index)
            default: break
            }
        }
        if !text[start...].allSatisfy(\.isWhitespace) { parts.append(text[start...]) }
        return parts
    }

    static func signature(_ parameters: Substring) -> Signature {
        var labels: [String] = []
        var defaulted: [Bool] = []
        for parameter in topLevel(parameters) {
            guard let colon = parameter.firstIndex(of: ":") else { continue }
            let names = parameter[..<colon].split(whereSeparator: \.isWhitespace).filter { !$0.hasPrefix("@") }
            guard let first = names.first else { continue }
            labels.append(String(first))
            defaulted.append(parameter[colon...].contains("="))
        }
        return Signature(labels: labels, defaulted: defaulted)
    }

    /// `text` with each string literal's contents turned to spaces (`"https://…"` is not a label).
    static func blankingStrings(_ text: String) -> String {
        var out = ""
        var inString = false
        var escaped = false
        for character in text {
            if inString {
                if escaped {
                    escaped = false
                    out.append(" ")
                } else if character == "\\" {
                    escaped = true
                    out.append(" ")
                } else if character == "\"" || character == "\n" {
                    inString = false
                    out.append(character)
                } else {
                    out.append(" ")
                }
            } else {
                if character == "\"" { inString = true }
                out.append(character)
            }
        }
        return out
    }

    /// What `text` (code, or an inline code span) names that nothing declares.
    func unknownNames(in text: String) -> [String] {
        // Strings and comments say what they like.
        let code = Self.blankingStrings(text).split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.range(of: "//").map { line[..<$0.lowerBound] } ?? line
        }.joined(separator: "\n")
        var unknown: [String] = []
        for match in Self.matches(#"(?<![\w.\-/$])([A-Z][A-Za-z0-9_]*)\b"#, in: code) {
            let name = match.groups[0]!
            if !types.contains(name) && !Self.external.contains(name) { unknown.append(name) }
        }
        for match in Self.matches(#"\b([A-Z]\w*)\.([a-z]\w*)"#, in: code) where types.contains(match.groups[0]!) {
            let member = match.groups[1]!
            if !members.contains(member) { unknown.append("\(match.groups[0]!).\(member)") }
        }
        // References: `identify(externalID:identityToken:)`, `track(_:properties:)`, `logout()`.
        for match in Self.matches(#"\b([a-z]\w*)\(((?:\w+:)*)\)"#, in: code) {
            let labels = (match.groups[1] ?? "").split(separator: ":").map(String.init)
            unknown.append(contentsOf: check(match.groups[0]!, labels: labels))
        }
        // Calls with arguments (not declarations): `Herald.start(apiKey: "live_…", baseURL: "…")`.
        for match in Self.matches(#"(?<!func )\b([a-z]\w*)\("#, in: code) {
            let name = match.groups[0]!
            guard let arguments = Self.balanced(code, from: code.index(before: match.end)), !arguments.isEmpty,
                arguments.contains(where: { !$0.isLetter && $0 != ":" && $0 != "_" })
            else { continue }
            let labels = Self.topLevel(arguments).map { argument -> String in
                let trimmed = argument.drop(while: \.isWhitespace)
                guard let label = trimmed.prefixMatch(of: /(\w+)\s*:(?!:)/) else { return "_" }
                return String(label.1)
            }
            unknown.append(contentsOf: check(name, labels: labels))
        }
        return unknown
    }

    /// Problems with a use of function `name` with `labels`: unknown, or no declaration takes those labels.
    private func check(_ name: String, labels: [String]) -> [String] {
        if Self.external.contains(name) { return [] }
        if let signatures = functions[name] {
            if signatures.contains(where: { $0.accepts(labels) }) { return [] }
            return ["\(name)(\(labels.map { $0 + ":" }.joined())) matches none of \(signatures)"]
        }
        if members.contains(name) { return [] }
        return ["\(name)(…)"]
    }
}
