import HeraldModel

/// The survey wizard, headless: one question per step with progress, Back and Next; a required question blocks
/// Next until it is answered; answers are checked by the shared `SurveyValidator` (the server's rules) and each
/// question shows its own problem; after the last question Next submits, and a thank-you step carries the call to
/// action.
///
/// ```swift
/// var wizard = SurveyWizard(message)!
/// wizard.answer(4)
/// switch wizard.next() {
/// case .moved: …                       // next question
/// case .blocked(let problem): …        // show problem.message under the question
/// case .submitted(let answers): …      // send survey.submitted; the wizard is on its thank-you step
/// }
/// ```
public struct SurveyWizard: Sendable {
    /// Where the wizard is.
    public enum Step: Sendable, Equatable {
        /// Asking the question at this index.
        case question(Int)
        /// Answered: thanks, and the call to action.
        case thankYou
    }

    /// What Next did.
    public enum Advance: Sendable, Equatable {
        /// Moved to the next question.
        case moved
        /// Stayed: this question's answer is missing or refused.
        case blocked(SurveyAnswerProblem)
        /// The last question was answered: these normalized answers are to be sent; the wizard thanks.
        case submitted(SurveyAnswers)
    }

    /// The questions, in order.
    public let questions: [SurveyQuestion]
    /// The call to action of the thank-you step.
    public let cta: CallToAction?
    /// The current step.
    public private(set) var step: Step
    /// The answers given so far.
    public private(set) var answers: SurveyAnswers
    /// The question whose problem is shown: set when Next was refused, cleared when it is answered again.
    public private(set) var shownProblem: SurveyAnswerProblem?
    private let validator: SurveyValidator

    /// The wizard for a survey message; nil for a plain message. A survey without questions starts at thank-you.
    public init?(_ message: HeraldMessage) {
        guard let survey = message.survey else { return nil }
        questions = survey.questions
        cta = message.cta
        validator = SurveyValidator(survey)
        answers = SurveyAnswers()
        step = questions.isEmpty ? .thankYou : .question(0)
    }

    /// The question on screen, or nil on the thank-you step.
    public var currentQuestion: SurveyQuestion? {
        if case .question(let index) = step { return questions[index] }
        return nil
    }

    /// The current answer to the question on screen.
    public var currentAnswer: JSON? { currentQuestion.flatMap { answers[$0.id] } }

    /// Progress as (step, of steps), 1-based; the thank-you step is the last question's count.
    public var progress: (current: Int, total: Int) {
        switch step {
        case .question(let index): return (index + 1, questions.count)
        case .thankYou: return (questions.count, questions.count)
        }
    }

    /// The share of questions answered past, 0…1 (1 on thank-you).
    public var fractionComplete: Double {
        guard !questions.isEmpty else { return 1 }
        switch step {
        case .question(let index): return Double(index) / Double(questions.count)
        case .thankYou: return 1
        }
    }

    /// Back is offered past the first question (not on thank-you: the answers are sent).
    public var canGoBack: Bool {
        if case .question(let index) = step { return index > 0 }
        return false
    }

    /// Next is enabled: the question on screen has an acceptable answer, or needs none.
    public var canGoNext: Bool {
        guard case .question(let index) = step else { return false }
        return validator.canAdvance(past: index, with: answers)
    }

    /// The last question is on screen: Next says Submit.
    public var isOnLastQuestion: Bool { step == .question(questions.count - 1) }

    /// The problem with the question on screen as answered now (nil when acceptable).
    public var currentProblem: SurveyAnswerProblem? {
        guard case .question(let index) = step else { return nil }
        return validator.problem(forQuestionAt: index, in: answers)
    }

    /// Answers the question on screen (nil clears the answer).
    public mutating func answer(_ value: JSON?) {
        guard let question = currentQuestion else { return }
        answers[question.id] = value
        if shownProblem?.questionID == question.id { shownProblem = nil }
    }

    /// Next: moves on when the answer is acceptable; after the last question checks all answers, and either goes
    /// back to the first question with a problem or submits and moves to thank-you.
    public mutating func next() -> Advance {
        guard case .question(let index) = step else {
            return .blocked(SurveyAnswerProblem(questionID: nil, code: .required, message: "is already submitted"))
        }
        if let problem = validator.problem(forQuestionAt: index, in: answers) {
            shownProblem = problem
            return .blocked(problem)
        }
        shownProblem = nil
        if index + 1 < questions.count {
            step = .question(index + 1)
            return .moved
        }
        if let problem = validator.validate(answers).first {
            if let id = problem.questionID, let position = questions.firstIndex(where: { $0.id == id }) {
                step = .question(position)
            }
            shownProblem = problem
            return .blocked(problem)
        }
        step = .thankYou
        return .submitted(validator.normalized(answers))
    }

    /// Back: the previous question, its answer kept.
    public mutating func back() {
        guard case .question(let index) = step, index > 0 else { return }
        shownProblem = nil
        step = .question(index - 1)
    }
}
