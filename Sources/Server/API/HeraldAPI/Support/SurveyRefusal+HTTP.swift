import HeraldDomain
import HeraldHTTPServer

extension SurveyRefusal: HTTPErrorConvertible {
    /// The API's answer: 422 `{"errors":{"<question id>":["…"]}}`, or on `user_survey_id` when answered already;
    /// 503 when the survey's definition can't be read.
    package var httpError: HTTPError {
        var errors = FieldErrors()
        switch code {
        case .unreadableDefinition:
            return HTTPError(.serviceUnavailable, field: "base", "the survey's definition can't be read")
        case .answeredAlready: errors.add("user_survey_id", "has already been answered")
        default: for problem in problems { errors.add(problem.field, problem.message) }
        }
        return HTTPError(.unprocessableEntity, errors: errors.errors)
    }
}
