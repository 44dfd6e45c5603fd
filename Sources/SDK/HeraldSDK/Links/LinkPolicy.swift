/// Which calls to action the SDK opens. A link needs a scheme; `javascript:`, `file:`, `data:`, `intent:` (and
/// `vbscript:`) are refused, as is every `itms-…:` scheme but `itms-apps:` (the App Store). Tabs and newlines
/// inside the link and control characters around it are removed first, as browsers do, so they can't hide a
/// scheme; the scheme is compared in lower case.
///
/// ```swift
/// LinkPolicy().evaluate("https://example.com/order")  // .allowed("https://example.com/order")
/// LinkPolicy().evaluate(" JavaScript:alert(1)")        // .refused(…)
/// ```
public struct LinkPolicy: Sendable {
    /// Schemes never opened.
    public var refusedSchemes: Set<String> = ["javascript", "file", "data", "intent", "vbscript"]
    /// `itms-` schemes that are opened (the rest are refused).
    public var allowedITMSSchemes: Set<String> = ["itms-apps"]

    /// The default policy.
    public init() {}

    /// The verdict on a link.
    public enum Decision: Sendable, Equatable {
        /// Open this (the link, cleaned).
        case allowed(String)
        /// Don't; why.
        case refused(String)
    }

    /// Judges `link`.
    public func evaluate(_ link: String) -> Decision {
        let cleaned = Self.clean(link)
        guard let scheme = Self.scheme(of: cleaned) else { return .refused("a link needs a scheme (https:, …)") }
        if refusedSchemes.contains(scheme) { return .refused("\(scheme): links are never opened") }
        if scheme.hasPrefix("itms-") || scheme == "itms", !allowedITMSSchemes.contains(scheme) {
            return .refused("\(scheme): links are never opened (only itms-apps:)")
        }
        return .allowed(cleaned)
    }

    /// Without leading and trailing C0 controls and spaces, and without any tab, CR or LF.
    static func clean(_ link: String) -> String {
        var scalars = Array(link.unicodeScalars)
        scalars.removeAll { $0 == "\t" || $0 == "\n" || $0 == "\r" }
        while let first = scalars.first, first.value <= 0x20 { scalars.removeFirst() }
        while let last = scalars.last, last.value <= 0x20 { scalars.removeLast() }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }

    /// The lower-cased scheme: a letter, then letters, digits, `+`, `-`, `.`, before the first `:`.
    static func scheme(of link: String) -> String? {
        guard let colon = link.firstIndex(of: ":") else { return nil }
        let scheme = link[..<colon]
        guard let first = scheme.unicodeScalars.first, first.isASCIILetter,
            scheme.unicodeScalars.allSatisfy({
                $0.isASCIILetter || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)
            })
        else { return nil }
        return scheme.lowercased()
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
