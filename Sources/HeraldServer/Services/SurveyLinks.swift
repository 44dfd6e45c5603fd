import HeraldCrypto
import HeraldStore

/// Where a user's survey is answered: the `survey_url` of Fetch User Survey and Transaction Details, which a
/// Punchh app opens in a web view.
struct SurveyLinks: Sendable {
    /// The scheme, host and port devices reach Herald at, without a trailing slash (known once it listens).
    let baseURL: @Sendable () -> String

    /// The business's external page (a TypeForm URL) with the user survey id when the survey has one, else
    /// Herald's own page for it (`SurveyPageController`), signed with the business secret so that only the
    /// user it was sent to (whose app was given the link) can open it.
    func url(_ survey: Survey, _ userSurvey: UserSurvey, secret: [UInt8]) -> String {
        if let url = survey.url { return url + (url.contains("?") ? "&" : "?") + "user_survey_id=\(userSurvey.id)" }
        return baseURL() + "/surveys/\(userSurvey.id)?t=" + Self.token(userSurveyID: userSurvey.id, secret: secret)
    }

    /// The page's key for user survey `id`: 128 bits of an HMAC of it under the business secret.
    static func token(userSurveyID id: Int64, secret: [UInt8]) -> String {
        Base64URL.encode(HMACSHA256.authenticationCode(for: Array("survey-page:\(id)".utf8), key: secret).prefix(16))
    }
}
