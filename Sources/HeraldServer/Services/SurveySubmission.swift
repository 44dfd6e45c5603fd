import HeraldHTTP
import HeraldModel
import HeraldStore

/// A user's answers to a survey sent to them, checked by `SurveyValidator` — the code the SDK runs on the
/// device before sending them — and stored once, whether they come from the app's API call or from the survey's
/// page in a web view.
struct SurveySubmission: Sendable {
    let store: any Store
    let clock: WallClock

    /// The definition `survey` was created with (checked then, so failing to read it is the server's trouble).
    static func definition(of survey: Survey) throws -> SurveyDefinition {
        do {
            return try SurveyDefinition(json: survey.definition)
        } catch {
            throw HTTPError(.serviceUnavailable, field: "base", "the survey's definition can't be read")
        }
    }

    /// Stores `answers` (a JSON object keyed by question id); 422 `{"errors":{"<question id>":["…"]}}` when they
    /// don't fit, or when the survey has been answered already.
    func submit(_ answers: JSON, to userSurvey: UserSurvey, of survey: Survey) throws -> UserSurvey {
        guard userSurvey.submittedAt == nil else {
            throw HTTPError.invalid("user_survey_id", "has already been answered")
        }
        let validator = SurveyValidator(try Self.definition(of: survey))
        let problems = validator.validate(json: answers)
        if !problems.isEmpty {
            var errors = FieldErrors()
            for problem in problems { errors.add(problem.field, problem.message) }
            try errors.check()
        }
        let parsed = try SurveyAnswers(json: answers)
        return try store.submitSurvey(
            userID: userSurvey.userID, id: userSurvey.id, answers: validator.normalized(parsed).json, at: clock.now())
    }
}
