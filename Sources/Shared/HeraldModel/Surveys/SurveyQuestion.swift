/// One question of a survey: one step of the SDK's wizard.
///
/// Each type reads only its own limits; the others are ignored (and refused on the wire):
///
/// | type | answer | limits |
/// |---|---|---|
/// | `single_choice` | a choice id | `choices` (2…50) |
/// | `multiple_choice` | distinct choice ids | `choices`, `minSelected`, `maxSelected` |
/// | `rating` | a whole number | `scale`, default 1…5 |
/// | `boolean` | `true` / `false` | |
/// | `number` | a finite number | `minimum`, `maximum` |
/// | `slider` | a whole number (any number with `allowsDecimals`) | `scale`, default 0…10 |
/// | `open_ended` | text | `maxLength`, default and most 2000 characters |
///
/// ```swift
/// let question = SurveyQuestion(id: "visit", text: "How was your visit?", type: .rating, required: true)
/// question.effectiveScale  // 1...5
/// ```
public struct SurveyQuestion: Sendable, Hashable {
    /// The question's id, which answers are keyed by: 1 to 64 characters from `A-Z a-z 0-9 _ -`, unique in its
    /// survey.
    public var id: String
    /// What the user reads.
    public var text: String
    /// How it is answered.
    public var type: SurveyQuestionType
    /// When true the wizard's Next stays blocked, and the server refuses the answers, until it is answered.
    public var required: Bool
    /// The choices of a `single_choice` or `multiple_choice` question, in the order shown; empty for the others.
    public var choices: [SurveyChoice]
    /// The allowed range of a `rating` or `slider`; nil for the type's default (`defaultScale(for:)`).
    public var scale: ClosedRange<Int>?
    /// A `slider` accepts any number in its scale rather than only whole numbers.
    public var allowsDecimals: Bool
    /// The smallest answer a `number` question accepts; nil for no limit.
    public var minimum: Double?
    /// The largest answer a `number` question accepts; nil for no limit.
    public var maximum: Double?
    /// The most characters an `open_ended` answer may have after trimming; never more than
    /// `SurveyQuestion.maximumAnswerLength`, whatever this says.
    public var maxLength: Int
    /// The fewest choices a `multiple_choice` answer may select; nil for 1 (when answered at all).
    public var minSelected: Int?
    /// The most choices a `multiple_choice` answer may select; nil for all of them.
    public var maxSelected: Int?

    /// The longest `open_ended` answer any question accepts, in characters.
    public static let maximumAnswerLength = 2000

    /// A question. Limits a type doesn't use are ignored.
    public init(
        id: String, text: String, type: SurveyQuestionType, required: Bool = false, choices: [SurveyChoice] = [],
        scale: ClosedRange<Int>? = nil, allowsDecimals: Bool = false, minimum: Double? = nil, maximum: Double? = nil,
        maxLength: Int = SurveyQuestion.maximumAnswerLength, minSelected: Int? = nil, maxSelected: Int? = nil
    ) {
        self.id = id
        self.text = text
        self.type = type
        self.required = required
        self.choices = choices
        self.scale = scale
        self.allowsDecimals = allowsDecimals
        self.minimum = minimum
        self.maximum = maximum
        self.maxLength = maxLength
        self.minSelected = minSelected
        self.maxSelected = maxSelected
    }

    /// The scale a type uses when the question names none: 1…5 for `rating`, 0…10 for `slider`, nil for the
    /// types without a scale.
    public static func defaultScale(for type: SurveyQuestionType) -> ClosedRange<Int>? {
        switch type {
        case .rating: return 1...5
        case .slider: return 0...10
        default: return nil
        }
    }

    /// The range a `rating` or `slider` answer must be in (`scale` or the default); nil for other types.
    public var effectiveScale: ClosedRange<Int>? {
        guard let standard = Self.defaultScale(for: type) else { return nil }
        return scale ?? standard
    }

    /// The most characters an `open_ended` answer may have: `maxLength`, capped at `maximumAnswerLength`.
    public var effectiveMaxLength: Int { min(maxLength, Self.maximumAnswerLength) }
}
