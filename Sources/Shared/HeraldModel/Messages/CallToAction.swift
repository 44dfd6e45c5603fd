/// A message's call to action: `{"label","url"}`, the button the notification screen shows.
public struct CallToAction: Sendable, Hashable {
    /// The button's text; nil or blank shows the URL instead (`displayLabel`).
    public var label: String?
    /// Where the button leads: a web page or an app link.
    public var url: String

    /// A call to action.
    public init(label: String?, url: String) {
        self.label = label
        self.url = url
    }

    /// Reads `{"label","url"}`: nil unless `url` is a non-empty string and `label`, when present and not null,
    /// is a string.
    public init?(json: JSON) {
        guard json.objectValue != nil, let url = json["url"]?.stringValue, !url.isEmpty else { return nil }
        switch json["label"] {
        case nil, .null: self.init(label: nil, url: url)
        case .string(let label): self.init(label: label, url: url)
        default: return nil
        }
    }

    /// `{"label","url"}`; `label` is left out when nil.
    public var json: JSON {
        var pairs: [(key: String, value: JSON)] = []
        if let label { pairs.append(("label", .string(label))) }
        pairs.append(("url", .string(url)))
        return .object(pairs)
    }

    /// What the button says: the label, or the URL when the label is missing or blank.
    public var displayLabel: String {
        guard let label, !SurveyText.trimmed(label).isEmpty else { return url }
        return label
    }
}
