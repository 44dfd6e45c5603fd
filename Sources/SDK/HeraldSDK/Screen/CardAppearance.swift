import HeraldModel

/// How the notification card looks and what it says: colours for light and dark, corner radius, font sizes and
/// family, light or dark (the system's by default), direction and language, and any of its strings (English by
/// default; the table of keys is in docs/sdk.md, "The notification card"). Everything left nil keeps the card's
/// default; a colour is any CSS colour, and one the card can't read is ignored.
///
/// ```swift
/// var appearance = CardAppearance()
/// appearance.light.accent = "#d62300"
/// appearance.cornerRadius = 20
/// appearance.strings = ["close": "Fermer", "next": "Suivant", "submit": "Envoyer"]
/// ```
public struct CardAppearance: Sendable, Equatable {
    /// Light or dark. Open: later versions may add schemes.
    public struct ColorScheme: RawRepresentable, Sendable, Hashable {
        /// The name on the bridge.
        public let rawValue: String
        /// A scheme named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The system's appearance (`prefers-color-scheme`).
        public static let system = ColorScheme(rawValue: "system")
        /// Always light.
        public static let light = ColorScheme(rawValue: "light")
        /// Always dark.
        public static let dark = ColorScheme(rawValue: "dark")
    }

    /// Which way text runs. Open: a struct, like the other wire constants.
    public struct Direction: RawRepresentable, Sendable, Hashable {
        /// The name on the bridge (`ltr`, `rtl`).
        public let rawValue: String
        /// A direction named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Left to right.
        public static let leftToRight = Direction(rawValue: "ltr")
        /// Right to left: the close button and the ribbon change corners, text and controls run from the right.
        public static let rightToLeft = Direction(rawValue: "rtl")
    }

    /// The colours of one scheme, each a CSS colour (`#d62300`, `rgb(…)`); nil keeps the card's.
    public struct Colors: Sendable, Equatable {
        /// The card's background.
        public var background: String?
        /// Headline, body and answers.
        public var text: String?
        /// Secondary text: progress, time, counters.
        public var muted: String?
        /// Buttons, the progress bar, selected answers.
        public var accent: String?
        /// Text on the accent colour.
        public var accentText: String?
        /// Inputs, the audio player, file rows.
        public var surface: String?
        /// Borders of inputs and options.
        public var border: String?
        /// A refused answer's message.
        public var error: String?
        /// The veil over the app behind the card.
        public var scrim: String?
        /// The SANDBOX ribbon.
        public var ribbon: String?
        /// Text on the ribbon.
        public var ribbonText: String?
        /// The keyboard focus ring.
        public var focus: String?

        /// Colours all left to the card.
        public init() {}

        /// `{"background":…,"accent_text":…}` with the colours set.
        var json: JSON {
            let pairs: [(String, String?)] = [
                ("background", background), ("text", text), ("muted", muted), ("accent", accent),
                ("accent_text", accentText), ("surface", surface), ("border", border), ("error", error),
                ("scrim", scrim), ("ribbon", ribbon), ("ribbon_text", ribbonText), ("focus", focus),
            ]
            return .object(pairs.compactMap { key, value in value.map { (key, .string($0)) } })
        }
    }

    /// Light, dark, or the system's (the default).
    public var colorScheme: ColorScheme = .system
    /// The colours in light.
    public var light = Colors()
    /// The colours in dark.
    public var dark = Colors()
    /// The card's corner radius in points (0 to 48); nil for 16.
    public var cornerRadius: Double?
    /// The body's font size in points (10 to 40); nil for 16.
    public var fontSize: Double?
    /// The headline's font size in points (10 to 60); nil for 20.
    public var headlineFontSize: Double?
    /// A CSS font family (`"Avenir Next", sans-serif`); nil for the system's.
    public var fontFamily: String?
    /// Which way text runs; nil for the app's own direction (the iOS host reads its view's).
    public var direction: Direction?
    /// The language of the card's strings (`fr`, `ar`); nil for the app's.
    public var language: String?
    /// Strings replacing the card's English ones, by key (`close`, `next`, `progress`, …; `problem_<code>` replaces
    /// the validator's message for one rule). `{placeholders}` are filled as the table says.
    public var strings: [String: String] = [:]

    /// The card's defaults.
    public init() {}

    /// The appearance as the card's `show` message carries it.
    public var json: JSON {
        var pairs: [(key: String, value: JSON)] = [
            ("color_scheme", .string(colorScheme.rawValue)),
            ("colors", .object([("light", light.json), ("dark", dark.json)])),
        ]
        if let cornerRadius { pairs.append(("corner_radius", .double(cornerRadius))) }
        if let fontSize { pairs.append(("font_size", .double(fontSize))) }
        if let headlineFontSize { pairs.append(("headline_size", .double(headlineFontSize))) }
        if let fontFamily { pairs.append(("font_family", .string(fontFamily))) }
        if let direction { pairs.append(("direction", .string(direction.rawValue))) }
        if let language { pairs.append(("lang", .string(language))) }
        let table = strings.sorted { $0.key < $1.key }.map { (key: $0.key, value: JSON.string($0.value)) }
        pairs.append(("strings", .object(table)))
        return .object(pairs)
    }
}
