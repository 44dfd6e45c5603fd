import HeraldCrypto
import HeraldDomain
import HeraldEntities

/// Where a user's survey is answered: the `survey_url` of Fetch User Survey and Transaction Details, which a
/// Punchh app opens in a web view.
struct SurveyLinks: Sendable {
    /// The scheme, host and port devices reach Herald at, without a trailing slash (known once it listens).
    let baseURL: @Sendable () -> String
    /// Holds the server's own key the page keys are made with.
    let sealer: SecretSealer

    /// The business's external page (a TypeForm URL) with the user survey id when the survey has one, else
    /// Herald's own page for it (`SurveyPageController`), with a key only the server can make, so that only the
    /// user it was sent to (whose app was given the link) can open it.
    func url(_ survey: Survey, _ userSurvey: UserSurvey) -> String {
        if let url = survey.url { return url + (url.contains("?") ? "&" : "?") + "user_survey_id=\(userSurvey.id)" }
        return baseURL() + "/surveys/\(userSurvey.id)?t=" + Self.token(userSurveyID: userSurvey.id, sealer: sealer)
    }

    /// The page's key for user survey `id`: 128 bits of an HMAC of it under a key derived from the server's
    /// sealing key. Not under the business secret: every copy of the app holds that, so any user could make the
    /// key of any other user's survey and answer it for them.
    static func token(userSurveyID id: Int64, sealer: SecretSealer) -> String {
        Base64URL.encode(sealer.authenticationCode(for: Array("\(id)".utf8), purpose: .surveyPage).prefix(16))
    }
}
