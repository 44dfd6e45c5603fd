import Foundation
import HeraldCrypto
import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// The page a hosted survey's `survey_url` opens in the app's web view, as Punchh's TypeForm link is opened: the
/// questions as a plain HTML form, and its answers checked by the same `SurveyValidator` as the app's API call
/// (`LoyaltyService.submitSurvey`) — wrong answers show the form again with what is wrong under each question.
///
/// The link carries `t`, a key only the server can make (`SurveyLinks.token`): only the app the survey was
/// sent to was given it; without it, or for an unknown survey, the answer is the API's JSON 404. Answers that don't
/// fit are the API's JSON 422 too, unless the caller asks for HTML (a browser's `Accept`).
struct SurveyPageController: Sendable {
    let loyalty: LoyaltyService
    let sealer: SecretSealer

    func register(in router: inout Router) {
        router.get("/surveys/{user_survey_id}", show)
        router.post("/surveys/{user_survey_id}", answer)
    }

    /// What the page says once the answers are in.
    static let thanks = "<p>Thank you: your answers are in.</p>"

    @Sendable func show(_ request: HTTPRequest) throws -> HTTPResponse {
        let (userSurvey, survey) = try opened(request)
        let definition = try survey.parsedDefinition()
        if userSurvey.submittedAt != nil { return page(definition.title, Self.thanks) }
        return page(definition.title, form(definition, target: request.target, answers: [], problems: []))
    }

    @Sendable func answer(_ request: HTTPRequest) throws -> HTTPResponse {
        let (userSurvey, survey) = try opened(request)
        let definition = try survey.parsedDefinition()
        let fields = QueryString.parse(String(decoding: request.body, as: UTF8.self))
        let answers = Self.answers(fields, to: definition)
        // A browser is answered with pages; anything else with the API's JSON, from the same submission.
        do {
            _ = try loyalty.submitSurvey(userID: userSurvey.userID, userSurveyID: userSurvey.id, answers: answers)
        } catch let refusal as SurveyRefusal where wantsHTML(request) && refusal.code == .answeredAlready {
            return page(definition.title, "<p>These answers are in already: thank you.</p>", status: .conflict)
        } catch let refusal as SurveyRefusal where wantsHTML(request) && refusal.code == .invalidAnswers {
            return page(
                definition.title,
                form(definition, target: request.target, answers: fields, problems: refusal.problems),
                status: .unprocessableEntity)
        }
        return page(definition.title, Self.thanks)
    }

    /// The user survey the request's path names, if its `t` is that survey's key; 404 otherwise (the same answer
    /// for a wrong key and an unknown survey).
    private func opened(_ request: HTTPRequest) throws -> (UserSurvey, Survey) {
        guard let id = request.parameter("user_survey_id").flatMap(PathID.parse),
            let (userSurvey, survey) = try loyalty.userSurvey(id: id),
            let key = request.queryValue("t")
        else { throw HTTPError.notFound("survey not found") }
        let expected = SurveyLinks.token(userSurveyID: id, sealer: sealer)
        guard ConstantTime.equals(Array(key.utf8), Array(expected.utf8)) else {
            throw HTTPError.notFound("survey not found")
        }
        return (userSurvey, survey)
    }

    /// The form's fields as the JSON answers the API takes: a choice id, a list of them, a number, a boolean or
    /// text per question; empty fields are unanswered. What isn't what its type needs is passed on as text, for
    /// the validator to say so.
    static func answers(_ fields: [(name: String, value: String)], to definition: SurveyDefinition) -> JSON {
        var answers: [(key: String, value: JSON)] = []
        for question in definition.questions {
            let values = fields.filter { $0.name == question.id && !$0.value.isEmpty }.map(\.value)
            guard let first = values.first else { continue }
            let answer: JSON
            switch question.type {
            case .multipleChoice: answer = .array(values.map { .string($0) })
            case .rating, .slider, .number:
                // As JSON writes numbers (no hexadecimal, no "inf"); anything else as text, for the validator.
                if let number = try? JSON.parse(first), number.int64Value != nil || number.doubleValue != nil {
                    answer = number
                } else {
                    answer = .string(first)
                }
            case .boolean: answer = first == "true" ? .bool(true) : first == "false" ? .bool(false) : .string(first)
            default: answer = .string(first)
            }
            answers.append((question.id, answer))
        }
        return .object(answers)
    }

    // MARK: - HTML

    private func wantsHTML(_ request: HTTPRequest) -> Bool {
        request.header("accept")?.contains("text/html") ?? false
    }

    /// The page's only style, inline: the Content-Security-Policy allows exactly it, by its hash.
    static let style = """
        body{font-family:system-ui,sans-serif;margin:1em auto;max-width:36em;padding:0 1em}
        fieldset{border:0;margin:0 0 1.2em;padding:0}legend{font-weight:600;margin-bottom:.4em}
        label{display:block;margin:.2em 0}textarea,input[type=number]{width:100%}
        .problem{color:#b00020}button{font-size:1.1em;padding:.5em 1.5em}
        """

    /// Nothing runs, nothing loads from elsewhere, the form posts only here, and no other site frames the page (a
    /// user could be tricked into answering for it).
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'sha256-" + Data(SHA256.hash(Array(style.utf8))).base64EncodedString()
        + "'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    private func page(_ title: String, _ content: String, status: HTTPStatus = .ok) -> HTTPResponse {
        var response = HTTPResponse.text(
            """
            <!doctype html>
            <html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(Self.escaped(title))</title>
            <style>\(Self.style)</style></head>
            <body><h1>\(Self.escaped(title))</h1>
            \(content)
            </body></html>
            """, status: status, contentType: "text/html; charset=utf-8")
        // The key is in the link: keep it out of other sites' Referer headers and out of caches.
        response.headers += [
            ("referrer-policy", "no-referrer"), ("cache-control", "no-store"),
            ("content-security-policy", Self.contentSecurityPolicy), ("x-frame-options", "DENY"),
            ("x-content-type-options", "nosniff"),
        ]
        return response
    }

    private func form(
        _ definition: SurveyDefinition, target: String, answers: [(name: String, value: String)],
        problems: [SurveyAnswerProblem]
    ) -> String {
        var html = "<form method=\"post\" action=\"\(Self.escaped(target))\">\n"
        for problem in problems where problem.questionID == nil {
            html += "<p class=\"problem\">\(Self.escaped(problem.message))</p>\n"
        }
        for question in definition.questions {
            let given = answers.filter { $0.name == question.id }.map(\.value)
            let name = Self.escaped(question.id)
            html += "<fieldset><legend>\(Self.escaped(question.text))\(question.required ? " *" : "")</legend>\n"
            func option(_ type: String, _ value: String, _ label: String) {
                let checked = given.contains(value) ? " checked" : ""
                html +=
                    "<label><input type=\"\(type)\" name=\"\(name)\" value=\"\(Self.escaped(value))\"\(checked)> "
                    + "\(Self.escaped(label))</label>\n"
            }
            switch question.type {
            case .singleChoice: for choice in question.choices { option("radio", choice.id, choice.text) }
            case .multipleChoice: for choice in question.choices { option("checkbox", choice.id, choice.text) }
            case .boolean:
                option("radio", "true", "Yes")
                option("radio", "false", "No")
            case .rating,
                .slider where !question.allowsDecimals:
                // One choice per step: a group an optional question can also be left without.
                let scale = question.scale ?? SurveyQuestion.defaultScale(for: question.type) ?? 1...5
                for value in scale { option("radio", String(value), String(value)) }
            case .slider, .number:
                // Any number the browser takes: the validator judges it, as it judges the app's.
                let minimum = question.minimum ?? question.scale.map { Double($0.lowerBound) }
                let maximum = question.maximum ?? question.scale.map { Double($0.upperBound) }
                html +=
                    "<input type=\"number\" name=\"\(name)\" step=\"any\""
                    + (minimum.map { " min=\"\($0)\"" } ?? "") + (maximum.map { " max=\"\($0)\"" } ?? "")
                    + " value=\"\(Self.escaped(given.first ?? ""))\">\n"
            default:
                html +=
                    "<textarea name=\"\(name)\" rows=\"4\" maxlength=\"\(question.maxLength)\">"
                    + "\(Self.escaped(given.first ?? ""))</textarea>\n"
            }
            for problem in problems where problem.questionID == question.id {
                html += "<p class=\"problem\">\(Self.escaped(problem.message))</p>\n"
            }
            html += "</fieldset>\n"
        }
        return html + "<button type=\"submit\">Send</button>\n</form>"
    }

    /// `text` safe inside HTML text and quoted attribute values.
    static func escaped(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
