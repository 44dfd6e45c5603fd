/// The one check of survey answers: the server runs it before storing answers, the SDK before it lets the
/// wizard move on and before it sends them, so the two never disagree.
///
/// Rules, per question type (an answer that is absent, `null`, blank text or `[]` counts as unanswered, which
/// only a required question refuses):
/// - `single_choice`: the id of one of the question's choices;
/// - `multiple_choice`: a list of distinct choice ids, at least `minSelected` (default 1) and at most
///   `maxSelected` (default all);
/// - `rating`: a whole number in the scale (default 1…5); `3.0` counts as 3, `3.5` is refused;
/// - `boolean`: `true` or `false`;
/// - `number`: a finite number within `minimum`…`maximum` when set;
/// - `slider`: a whole number in the scale (default 0…10), any number in it with `allowsDecimals`;
/// - `open_ended`: text which, trimmed, has at most `maxLength` (≤ 2000) characters (grapheme clusters: an
///   emoji or a letter with its accents is one), at most 40 UTF-8 bytes per allowed character, and no control
///   character but tab and newline.
///
/// Answers keyed by ids that aren't questions are refused too. Each question gets at most one problem; problems
/// come in question order, then unknown ids in byte order, and depend only on the definition and the answers.
///
/// ```swift
/// let validator = SurveyValidator(survey)
/// validator.canAdvance(past: step, with: answers)  // the wizard's Next
/// validator.validate(answers)                     // [] when the server will accept them
/// ```
public struct SurveyValidator: Sendable {
    /// The survey the answers are for.
    public let definition: SurveyDefinition
    private let questionIDs: Set<String>
    private let choiceIDs: [Set<String>]

    /// A validator for `definition`'s answers.
    public init(_ definition: SurveyDefinition) {
        self.definition = definition
        questionIDs = Set(definition.questions.map(\.id))
        choiceIDs = definition.questions.map { Set($0.choices.map(\.id)) }
    }

    /// Every problem with `answers`: one per question at most, in question order, then one per unknown id.
    public func validate(_ answers: SurveyAnswers) -> [SurveyAnswerProblem] {
        var problems: [SurveyAnswerProblem] = []
        for index in definition.questions.indices {
            if let problem = problem(forQuestionAt: index, in: answers) { problems.append(problem) }
        }
        let unknown = answers.entries.map(\.questionID).filter { !questionIDs.contains($0) }
        for id in unknown.sorted(by: SurveyText.bytewiseLess) {
            problems.append(
                SurveyAnswerProblem(questionID: id, code: .unknownQuestion, message: "is not a question of this survey")
            )
        }
        return problems
    }

    /// Every problem with an answers body as received: one problem when it isn't a JSON object.
    public func validate(json: JSON) -> [SurveyAnswerProblem] {
        do {
            return validate(try SurveyAnswers(json: json))
        } catch {
            return [error]
        }
    }

    /// The problem with the answer to the question at `index`, or nil when it is acceptable (including
    /// unanswered, for a question that isn't required). Nil for an index out of range.
    public func problem(forQuestionAt index: Int, in answers: SurveyAnswers) -> SurveyAnswerProblem? {
        guard definition.questions.indices.contains(index) else { return nil }
        let question = definition.questions[index]
        switch check(question, choiceIDs: choiceIDs[index], answers[question.id]) {
        case .unanswered where question.required:
            return SurveyAnswerProblem(questionID: question.id, code: .required, message: "is required")
        case .unanswered, .accepted:
            return nil
        case .refused(let code, let message):
            return SurveyAnswerProblem(questionID: question.id, code: code, message: message)
        }
    }

    /// Whether the wizard may go on from the question at `questionIndex`: its answer is acceptable, and given if
    /// the question is required. False for an index out of range.
    public func canAdvance(past questionIndex: Int, with answers: SurveyAnswers) -> Bool {
        definition.questions.indices.contains(questionIndex)
            && problem(forQuestionAt: questionIndex, in: answers) == nil
    }

    /// Whether the answers may be sent: `validate` finds nothing.
    public func isComplete(_ answers: SurveyAnswers) -> Bool { validate(answers).isEmpty }

    /// The acceptable answers as Herald stores them: in question order, unanswered ones and unknown ids left out,
    /// text trimmed, whole numbers as integers. Answers with problems are left out too, so use it after
    /// `validate` finds none.
    public func normalized(_ answers: SurveyAnswers) -> SurveyAnswers {
        var result = SurveyAnswers()
        for (index, question) in definition.questions.enumerated() {
            if case .accepted(let value) = check(question, choiceIDs: choiceIDs[index], answers[question.id]) {
                result[question.id] = value
            }
        }
        return result
    }

    // MARK: - The rules

    /// What one answer amounts to.
    enum Outcome: Equatable {
        case unanswered
        /// Acceptable, in its stored form.
        case accepted(JSON)
        case refused(SurveyAnswerProblem.Code, String)
    }

    /// The number of UTF-8 bytes allowed per character of an `open_ended` answer's limit.
    static let bytesPerCharacter = 40

    func check(_ question: SurveyQuestion, choiceIDs: Set<String>, _ value: JSON?) -> Outcome {
        guard let value, !Self.isUnanswered(value) else { return .unanswered }
        switch question.type {
        case .singleChoice:
            guard let id = value.stringValue else { return .refused(.wrongType, "must be a choice id (a string)") }
            guard choiceIDs.contains(id) else {
                return .refused(.unknownChoice, "is not one of the question's choices")
            }
            return .accepted(value)
        case .multipleChoice:
            return checkSelection(question, choiceIDs: choiceIDs, value)
        case .rating:
            return checkWholeNumber(value, in: question.effectiveScale ?? 1...5)
        case .boolean:
            guard value.boolValue != nil else { return .refused(.wrongType, "must be true or false") }
            return .accepted(value)
        case .number:
            guard let number = value.doubleValue, number.isFinite else {
                return .refused(.wrongType, "must be a number")
            }
            if let minimum = question.minimum, number < minimum {
                return .refused(.outOfRange, "must be at least \(SurveyText.format(minimum))")
            }
            if let maximum = question.maximum, number > maximum {
                return .refused(.outOfRange, "must be at most \(SurveyText.format(maximum))")
            }
            return .accepted(value)
        case .slider:
            let scale = question.effectiveScale ?? 0...10
            guard question.allowsDecimals else { return checkWholeNumber(value, in: scale) }
            guard let number = value.doubleValue, number.isFinite else {
                return .refused(.wrongType, "must be a number")
            }
            guard number >= Double(scale.lowerBound), number <= Double(scale.upperBound) else {
                return .refused(.outOfRange, "must be from \(scale.lowerBound) to \(scale.upperBound)")
            }
            return .accepted(value.int64Value.map { .int($0) } ?? value)
        case .openEnded:
            return checkText(value, maximumLength: question.effectiveMaxLength)
        default:
            return .refused(.unsupportedType, "is a \(question.type.rawValue) question, which this version can't check")
        }
    }

    /// Null, blank text and an empty list: no answer.
    static func isUnanswered(_ value: JSON) -> Bool {
        switch value {
        case .null: return true
        case .string(let text): return SurveyText.trimmed(text).isEmpty
        case .array(let items): return items.isEmpty
        default: return false
        }
    }

    private func checkSelection(_ question: SurveyQuestion, choiceIDs: Set<String>, _ value: JSON) -> Outcome {
        guard let items = value.arrayValue else { return .refused(.wrongType, "must be a list of choice ids") }
        var selected: Set<String> = []
        for item in items {
            guard let id = item.stringValue else { return .refused(.wrongType, "must be a list of choice ids") }
            guard choiceIDs.contains(id) else {
                return .refused(.unknownChoice, "includes an id that is not one of the question's choices")
            }
            guard selected.insert(id).inserted else {
                return .refused(.duplicateChoice, "selects the same choice more than once")
            }
        }
        let fewest = question.minSelected ?? 1
        if selected.count < fewest {
            return .refused(.tooFewChoices, "must select at least \(fewest) \(fewest == 1 ? "choice" : "choices")")
        }
        if let most = question.maxSelected, selected.count > most {
            return .refused(.tooManyChoices, "must select at most \(most) \(most == 1 ? "choice" : "choices")")
        }
        return .accepted(value)
    }

    private func checkWholeNumber(_ value: JSON, in scale: ClosedRange<Int>) -> Outcome {
        guard let number = value.doubleValue, number.isFinite else {
            return .refused(.wrongType, "must be a whole number")
        }
        guard number >= Double(scale.lowerBound), number <= Double(scale.upperBound) else {
            return .refused(.outOfRange, "must be from \(scale.lowerBound) to \(scale.upperBound)")
        }
        guard number == number.rounded() else { return .refused(.notWholeNumber, "must be a whole number") }
        return .accepted(.int(Int64(number)))
    }

    private func checkText(_ value: JSON, maximumLength: Int) -> Outcome {
        guard let raw = value.stringValue else { return .refused(.wrongType, "must be text (a string)") }
        let text = SurveyText.trimmed(raw)
        if SurveyText.isLonger(text, than: maximumLength) {
            return .refused(.tooLong, "is too long (at most \(maximumLength) characters)")
        }
        let bytes = maximumLength * Self.bytesPerCharacter
        if text.utf8.count > bytes {
            return .refused(.tooLong, "is too long (at most \(bytes) bytes)")
        }
        if SurveyText.hasForbiddenControl(text) {
            return .refused(.controlCharacter, "must not contain control characters other than tab and newline")
        }
        return .accepted(.string(String(text)))
    }
}

extension SurveyDefinition {
    /// Every problem with `answers`: `SurveyValidator(self).validate(answers)`.
    public func validate(_ answers: SurveyAnswers) -> [SurveyAnswerProblem] {
        SurveyValidator(self).validate(answers)
    }
}
