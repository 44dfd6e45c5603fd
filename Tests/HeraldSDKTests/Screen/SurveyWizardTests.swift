import HeraldModel
import Testing

@testable import HeraldSDK

/// One question per step, required blocks Next, the validator's problem per question, thank-you with the CTA.
@Suite struct SurveyWizardTests {
    static let questions = [
        SurveyQuestion(id: "stars", text: "Rate us", type: .rating, required: true),
        SurveyQuestion(
            id: "drink", text: "Drink?", type: .multipleChoice,
            choices: [SurveyChoice(id: "tea", text: "Tea"), SurveyChoice(id: "coffee", text: "Coffee")], maxSelected: 1),
        SurveyQuestion(id: "more", text: "Anything else?", type: .openEnded, maxLength: 10),
    ]
    static let survey = testMessage("s-1", questions: questions)

    @Test func walksThroughWithProgressAndSubmits() throws {
        var wizard = try #require(SurveyWizard(Self.survey))
        #expect(wizard.step == .question(0) && wizard.currentQuestion?.id == "stars")
        #expect([wizard.progress.current, wizard.progress.total] == [1, 3] && wizard.fractionComplete == 0)
        #expect(!wizard.canGoBack && !wizard.canGoNext, "required and unanswered")
        #expect(
            wizard.next() == .blocked(SurveyAnswerProblem(questionID: "stars", code: .required, message: "is required"))
        )
        #expect(wizard.shownProblem?.code == .required)
        wizard.answer(9)
        #expect(wizard.currentProblem?.code == .outOfRange && !wizard.canGoNext)
        wizard.answer(4)
        #expect(wizard.shownProblem == nil && wizard.canGoNext)
        #expect(wizard.next() == .moved)
        #expect([wizard.progress.current, wizard.progress.total] == [2, 3] && wizard.canGoBack)
        #expect(wizard.canGoNext, "optional: Next without an answer")
        wizard.answer(["tea", "coffee"])
        #expect(wizard.currentProblem?.code == .tooManyChoices)
        wizard.back()
        #expect(wizard.step == .question(0) && wizard.currentAnswer == 4, "answers are kept going back")
        _ = wizard.next()
        wizard.answer(["coffee"])
        #expect(wizard.next() == .moved)
        #expect(wizard.isOnLastQuestion)
        wizard.answer("  great  ")
        guard case .submitted(let answers) = wizard.next() else {
            Issue.record("expected a submission")
            return
        }
        #expect(answers.json == ["stars": 4, "drink": ["coffee"], "more": "great"], "normalized: trimmed")
        #expect(
            wizard.step == .thankYou && [wizard.progress.current, wizard.progress.total] == [3, 3]
                && wizard.fractionComplete == 1)
        #expect(wizard.cta == Self.survey.cta)
        #expect(!wizard.canGoBack && !wizard.canGoNext)
        guard case .blocked = wizard.next() else {
            Issue.record("a second submit")
            return
        }
    }

    @Test func plainMessagesHaveNoWizardAndEmptySurveysThankAtOnce() {
        #expect(SurveyWizard(testMessage()) == nil)
        var empty = testMessage("s-0")
        empty.type = .survey
        let wizard = SurveyWizard(empty)
        #expect(wizard?.step == .thankYou)
    }

    @Test func theWizardAgreesWithTheServersValidator() throws {
        // Whatever the wizard submits, the shared event validator accepts.
        var wizard = try #require(SurveyWizard(Self.survey))
        wizard.answer(5)
        _ = wizard.next()
        _ = wizard.next()
        guard case .submitted(let answers) = wizard.next() else {
            Issue.record("expected a submission")
            return
        }
        let event = DeviceEvent(
            id: UUIDString.random(), type: .surveySubmitted, occurredAt: Timestamp(milliseconds: 0),
            notificationID: "s-1", data: DeviceEvent.surveySubmittedData(answers))
        #expect(DeviceEventValidator().check(event.json) { _ in Self.survey.survey }.isAccepted)
    }
}
