/// Text an operator writes for people to read — names, titles, bodies — that ends up on a phone's screen, in a
/// push payload or in the console: no control characters (NUL, escape, the C1 controls), and none of the
/// characters that reorder what follows them (the bidirectional overrides and isolates, which make "U+202E"
/// tricks like `txt.exe` read as `exe.txt`). A line of text has no line breaks either; a paragraph may have them
/// (`\n`, and tabs). The one rule of every API (admin, mobile, POS, device, the import) for text that is shown.
enum DisplayText {
    /// Whether the text may run over several lines.
    enum Shape {
        /// A name or a title: one line.
        case line
        /// A body: line breaks and tabs allowed.
        case paragraph
    }

    /// Whether `text` is one line of display text (what ids, names and versions shown in the console must be).
    static func isLine(_ text: String) -> Bool { problem(text, .line) == nil }

    /// What is wrong with `text` as display text of `shape`, or nil when nothing is.
    static func problem(_ text: String, _ shape: Shape) -> String? {
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A where shape == .paragraph, 0x09 where shape == .paragraph:
                continue
            case 0x0A, 0x0D: return "must be one line (no line breaks)"
            case 0x00...0x1F, 0x7F...0x9F: return "must not contain control characters"
            case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C:
                return "must not contain characters that reorder text (bidirectional controls)"
            default: continue
            }
        }
        return nil
    }
}
