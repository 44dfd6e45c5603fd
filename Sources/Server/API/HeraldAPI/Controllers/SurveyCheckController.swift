import HeraldHTTPServer
import HeraldModel

/// `POST /api/admin/surveys/validate`: the survey rules (`SurveyValidator`) for a page that can't run them itself.
/// The console's in-app card preview asks it before each Next and before submitting, as the card in the SDK asks
/// the same validator in the app: one set of rules. It keeps nothing and reads nothing stored: the questions come
/// with the answers.
///
/// `{"questions":[…],"answers":[{"question_id","value"}]}` → 200 `{"problems":[{"question_id","code","message"}]}`
/// (`[]` when the server would take these answers); 422 when the questions aren't a survey's (each problem on its
/// path, as `POST …/surveys` says it) or the answers aren't that list.
struct SurveyCheckController: Sendable {
    let admin: AdminAccess

    func register(in router: inout Router) {
        router.post("/api/admin/surveys/validate", admin.guarded(Self.validate))
    }

    @Sendable static func validate(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try request.jsonObjectBody()
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: ["questions", "answers"])
        var definition: SurveyDefinition?
        do {
            definition = try SurveyDefinition(
                json: .object([("title", "Preview"), ("questions", body["questions"] ?? .null)]))
        } catch {
            for problem in error.problems { errors.add(problem.field, problem.message) }
        }
        var answers: SurveyAnswers? = SurveyAnswers()
        if let value = body["answers"], !value.isNull {
            answers = DeviceEvent.surveyAnswers(inData: .object([("answers", value)]))
            if answers == nil { errors.add("answers", "must be a list of {\"question_id\",\"value\"} objects") }
        }
        try errors.check()
        guard let definition, let answers else { throw HTTPError.invalid("questions", "is invalid") }
        let problems = SurveyValidator(definition).validate(answers)
        return .json(.object([("problems", .array(problems.map(\.json)))]))
    }
}
