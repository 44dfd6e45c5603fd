import HeraldDomain
import HeraldHTTP
import HeraldModel
import HeraldStore

/// A user's answers to a survey sent to them, checked by `SurveyValidator` — the code the SDK runs on the
/// device before sending them — and stored once, whether they come from the app's API call or from the survey's
/// page in a web view.
struct SurveySubmission: Sendable {
    let loyalty: LoyaltyService

    /// Why answers were not stored.
    enum Refusal: Error {
        /// The survey was answered before (or meanwhile, by a second tap or the other channel).
        case answeredAlready
        /// What the validator found wrong, per question.
        case invalid([SurveyAnswerProblem])

        /// The API's answer: 422 `{"errors":{"<question id>":["…"]}}`, or on `user_survey_id` when answered.
        var error: HTTPError {
            var errors = FieldErrors()
            switch self {
            case .answeredAlready: errors.add("user_survey_id", "has already been answered")
            case .invalid(let problems): for problem in problems { errors.add(problem.field, problem.message) }
            }
            return HTTPError(.unprocessableEntity, errors: errors.errors)
        }
    }

    /// The definition `survey` was created with (checked then, so failing to read it is the server's trouble).
    static func definition(of survey: Survey) throws -> SurveyDefinition {
        do {
            return try SurveyDefinition(json: survey.definition)
        } catch {
            throw HTTPError(.serviceUnavailable, field: "base", "the survey's definition can't be read")
        }
    }

    /// Stores `answers` (a JSON object keyed by question id), or throws the `Refusal` saying why not.
    func store(_ answers: JSON, to userSurvey: UserSurvey, of survey: Survey) throws -> UserSurvey {
        guard userSurvey.submittedAt == nil else { throw Refusal.answeredAlready }
        let validator = SurveyValidator(try Self.definition(of: survey))
        let problems = validator.validate(json: answers)
        guard problems.isEmpty else { throw Refusal.invalid(problems) }
        do {
            return try loyalty.submitSurvey(
                userID: userSurvey.userID, userSurveyID: userSurvey.id,
                answers: validator.normalized(try SurveyAnswers(json: answers)).json)
        } catch let error as DomainError where error.code == .conflict {
            throw Refusal.answeredAlready
        }
    }

    /// `store`, refusals answered as the API answers them (`Refusal.error`).
    func submit(_ answers: JSON, to userSurvey: UserSurvey, of survey: Survey) throws -> UserSurvey {
        do {
            return try store(answers, to: userSurvey, of: survey)
        } catch let refusal as Refusal {
            throw refusal.error
        }
    }
}
