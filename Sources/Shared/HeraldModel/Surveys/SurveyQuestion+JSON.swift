extension SurveyQuestion {
    /// The question in the admin API's shape: `id`, `text`, `type`, `required`, then `choices` and the limits
    /// its type uses, when set. A limit set for a type that doesn't use it is written too, so `validate()`
    /// reports it.
    public var json: JSON {
        var pairs: [(key: String, value: JSON)] = [
            ("id", .string(id)), ("text", .string(text)), ("type", .string(type.rawValue)),
            ("required", .bool(required)),
        ]
        if type.isChoice || !choices.isEmpty { pairs.append(("choices", .array(choices.map(\.json)))) }
        let usesScale = type == .rating || type == .slider
        var bounds: (min: JSON?, max: JSON?) =
            usesScale ? (nil, nil) : (minimum.map(Self.number), maximum.map(Self.number))
        if let scale, type != .number { bounds = (.int(Int64(scale.lowerBound)), .int(Int64(scale.upperBound))) }
        if let low = bounds.min { pairs.append(("min", low)) }
        if let high = bounds.max { pairs.append(("max", high)) }
        if allowsDecimals { pairs.append(("allow_decimals", .bool(true))) }
        if type == .openEnded || maxLength != Self.maximumAnswerLength { pairs.append(("max_length", JSON(maxLength))) }
        if let minSelected { pairs.append(("min_selected", JSON(minSelected))) }
        if let maxSelected { pairs.append(("max_selected", JSON(maxSelected))) }
        return .object(pairs)
    }

    /// A whole number as an integer, anything else as a double.
    private static func number(_ value: Double) -> JSON {
        value == value.rounded() && abs(value) < 9.0e15 ? .int(Int64(value)) : .double(value)
    }

    /// Which types use each optional key, for "only applies to …" problems.
    private static let limitKeys: [(key: String, types: [SurveyQuestionType])] = [
        ("min", [.rating, .slider, .number]), ("max", [.rating, .slider, .number]), ("allow_decimals", [.slider]),
        ("max_length", [.openEnded]), ("min_selected", [.multipleChoice]), ("max_selected", [.multipleChoice]),
    ]

    /// Parses and checks one question of a definition, adding its problems under `path`; nil when it has any.
    static func parse(_ json: JSON, at path: String, into problems: inout SurveyProblemList) -> SurveyQuestion? {
        guard json.objectValue != nil else {
            problems.add(path, "must be an object")
            return nil
        }
        let before = problems.count
        let id = parseIdentifier(json["id"], at: "\(path).id", into: &problems)
        let text = parseText(
            json["text"], at: "\(path).text", maximumLength: SurveyDefinition.maximumQuestionTextLength,
            into: &problems)
        var type: SurveyQuestionType?
        switch json["type"] {
        case nil, .null: problems.add("\(path).type", "can't be blank")
        case .string(let name) where SurveyQuestionType(rawValue: name).isKnown:
            type = SurveyQuestionType(rawValue: name)
        case .string:
            let names = SurveyQuestionType.allKnown.map(\.rawValue).joined(separator: ", ")
            problems.add("\(path).type", "is not a question type (one of \(names))")
        default: problems.add("\(path).type", "must be a string")
        }
        var required = false
        switch json["required"] {
        case nil, .null: break
        case .bool(let flag): required = flag
        default: problems.add("\(path).required", "must be true or false")
        }
        guard let type else { return nil }

        var question = SurveyQuestion(id: id ?? "", text: text.map(String.init) ?? "", type: type, required: required)
        let choices = present(json["choices"])
        if type.isChoice {
            question.choices = parseChoices(choices, at: "\(path).choices", into: &problems) ?? []
        } else if let choices, choices.arrayValue?.isEmpty != true {
            problems.add("\(path).choices", "only applies to single_choice and multiple_choice questions")
        }
        for (key, types) in limitKeys where !types.contains(type) && present(json[key]) != nil {
            let names = types.map(\.rawValue)
            let list = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + names.last!
            problems.add("\(path).\(key)", "only applies to \(list) questions")
        }
        switch type {
        case .rating:
            question.scale = parseScale(json, at: path, within: 0...10, default: 1...5, into: &problems)
        case .slider:
            question.scale = parseScale(
                json, at: path, within: -1_000_000...1_000_000, default: 0...10, into: &problems)
            switch present(json["allow_decimals"]) {
            case nil: break
            case .bool(let flag): question.allowsDecimals = flag
            default: problems.add("\(path).allow_decimals", "must be true or false")
            }
        case .number:
            question.minimum = parseNumber(json["min"], at: "\(path).min", into: &problems)
            question.maximum = parseNumber(json["max"], at: "\(path).max", into: &problems)
            if let minimum = question.minimum, let maximum = question.maximum, minimum > maximum {
                problems.add("\(path).max", "must be at least min (\(SurveyText.format(minimum)))")
            }
        case .openEnded:
            let limit = SurveyQuestion.maximumAnswerLength
            if let length = parseInteger(
                json["max_length"], at: "\(path).max_length", within: 1...limit, into: &problems)
            {
                question.maxLength = length
            }
        case .multipleChoice:
            let count = question.choices.isEmpty ? SurveyDefinition.maximumChoices : question.choices.count
            question.minSelected = parseInteger(
                json["min_selected"], at: "\(path).min_selected", within: 0...count, into: &problems)
            question.maxSelected = parseInteger(
                json["max_selected"], at: "\(path).max_selected", within: 1...count, into: &problems)
            if let low = question.minSelected, let high = question.maxSelected, low > high {
                problems.add("\(path).max_selected", "must be at least min_selected (\(low))")
            }
        default:
            break
        }
        return problems.count == before ? question : nil
    }

    /// `value`, or nil when it is absent or `null`.
    private static func present(_ value: JSON?) -> JSON? {
        guard let value, !value.isNull else { return nil }
        return value
    }

    /// `value` as an identifier's text, if it is one: a short string, or a whole number read as its digits
    /// (`1` → `"1"`), the text answers are then keyed by.
    static func identifier(_ value: JSON?) -> String? {
        switch value {
        case .string(let id) where SurveyText.isIdentifier(id): return id
        case .int(let number) where number >= 0: return String(number)
        default: return nil
        }
    }

    /// A short identifier (see `identifier(_:)`), or nil after adding why not.
    static func parseIdentifier(_ value: JSON?, at field: String, into problems: inout SurveyProblemList) -> String? {
        if let id = identifier(value) { return id }
        switch present(value) {
        case nil:
            problems.add(field, "can't be blank")
        case .string(let id) where SurveyText.trimmed(id).isEmpty:
            problems.add(field, "can't be blank")
        case .string:
            problems.add(field, SurveyText.identifierMessage)
        default:
            problems.add(field, "must be a string")
        }
        return nil
    }

    /// Non-blank text without control characters (tab and newline allowed), trimmed; or nil after adding why not.
    static func parseText(
        _ value: JSON?, at field: String, maximumLength: Int, into problems: inout SurveyProblemList
    ) -> Substring? {
        guard let value = present(value) else {
            problems.add(field, "can't be blank")
            return nil
        }
        guard let raw = value.stringValue else {
            problems.add(field, "must be a string")
            return nil
        }
        let text = SurveyText.trimmed(raw)
        if text.isEmpty {
            problems.add(field, "can't be blank")
        } else if SurveyText.isLonger(text, than: maximumLength) {
            problems.add(field, "is too long (at most \(maximumLength) characters)")
        } else if SurveyText.hasForbiddenControl(text) {
            problems.add(field, "must not contain control characters other than tab and newline")
        } else {
            return text
        }
        return nil
    }

    /// The choices of a choice question, or nil after adding what is wrong with them.
    private static func parseChoices(
        _ value: JSON?, at path: String, into problems: inout SurveyProblemList
    ) -> [SurveyChoice]? {
        guard let value else {
            problems.add(path, "must have at least 2 choices")
            return nil
        }
        guard let items = value.arrayValue else {
            problems.add(path, "must be a list of choices")
            return nil
        }
        let before = problems.count
        if items.count < 2 { problems.add(path, "must have at least 2 choices") }
        guard items.count <= SurveyDefinition.maximumChoices else {
            problems.add(path, "must have at most \(SurveyDefinition.maximumChoices) choices (has \(items.count))")
            return nil
        }
        var choices: [SurveyChoice] = []
        var firstIndex: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            let itemPath = "\(path)[\(index)]"
            guard item.objectValue != nil else {
                problems.add(itemPath, "must be an object")
                continue
            }
            let id = parseIdentifier(item["id"], at: "\(itemPath).id", into: &problems)
            if let id {
                if let first = firstIndex[id] {
                    problems.add("\(itemPath).id", "duplicates \(path)[\(first)].id")
                } else {
                    firstIndex[id] = index
                }
            }
            let text = parseText(
                item["text"], at: "\(itemPath).text", maximumLength: SurveyDefinition.maximumChoiceTextLength,
                into: &problems)
            if let id, let text { choices.append(SurveyChoice(id: id, text: String(text))) }
        }
        return problems.count == before ? choices : nil
    }

    /// A whole number in `bounds`, nil when absent or after adding why not.
    private static func parseInteger(
        _ value: JSON?, at field: String, within bounds: ClosedRange<Int>, into problems: inout SurveyProblemList
    ) -> Int? {
        guard let value = present(value) else { return nil }
        guard let number = value.int64Value else {
            problems.add(field, "must be a whole number")
            return nil
        }
        guard number >= Int64(bounds.lowerBound), number <= Int64(bounds.upperBound) else {
            problems.add(field, "must be from \(bounds.lowerBound) to \(bounds.upperBound)")
            return nil
        }
        return Int(number)
    }

    /// A finite number, nil when absent or after adding why not.
    private static func parseNumber(_ value: JSON?, at field: String, into problems: inout SurveyProblemList)
        -> Double?
    {
        guard let value = present(value) else { return nil }
        guard let number = value.doubleValue, number.isFinite else {
            problems.add(field, "must be a number")
            return nil
        }
        return number
    }

    /// The `min`…`max` scale of a rating or slider (either may be left to `standard`), nil when both are absent.
    private static func parseScale(
        _ json: JSON, at path: String, within bounds: ClosedRange<Int>, default standard: ClosedRange<Int>,
        into problems: inout SurveyProblemList
    ) -> ClosedRange<Int>? {
        let before = problems.count
        let low = parseInteger(json["min"], at: "\(path).min", within: bounds, into: &problems)
        let high = parseInteger(json["max"], at: "\(path).max", within: bounds, into: &problems)
        guard problems.count == before, low != nil || high != nil else { return nil }
        let lower = low ?? standard.lowerBound
        let upper = high ?? standard.upperBound
        guard lower < upper else {
            problems.add("\(path).max", "must be greater than min (\(lower))")
            return nil
        }
        return lower...upper
    }
}
