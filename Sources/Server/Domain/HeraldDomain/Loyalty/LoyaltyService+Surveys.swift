import HeraldModel
import HeraldStore

extension LoyaltyService {
    /// Sends a survey to each user (all of them the business's: see `knownUsers`), each with an entry and its `s`
    /// push. Without `locationID` each user is asked about their latest visit, or about the business when they have
    /// none.
    package func sendSurvey(business: Business, surveyID: Int64, userIDs: [Int64], locationID: Int64?) throws
        -> [(userSurvey: UserSurvey, notification: InboxEntry?)]
    {
        let now = clock.now()
        return try store.transaction { tx in
            guard let survey = try tx.surveys.find(businessID: business.id, id: surveyID) else {
                throw DomainError.notFound("survey")
            }
            let users = try tx.knownUsers(businessID: business.id, ids: userIDs)
            let named = try locationID.map { try location(tx, businessID: business.id, $0) }
            let notifier = notifications.notifier(for: business, in: tx, at: now)
            var sent: [(userSurvey: UserSurvey, notification: InboxEntry?)] = []
            for user in users {
                let visit = try tx.checkins.latestApproved(userID: user.id, locationID: named?.id)
                let place = try named ?? visit.map { try location(tx, businessID: business.id, $0.locationID) }
                let userSurvey = try tx.surveys.send(survey, to: user.id, locationID: place?.id, at: now)
                let notice = LoyaltyNotices.survey(
                    userSurvey, survey, place, visit: visit, business: business, user: user)
                sent.append((userSurvey, try notifier.notify(notice)))
            }
            return sent
        }
    }

    /// The survey sent to a user as `id` (the push's `s`), with its survey. Not found when it is not theirs.
    package func userSurvey(userID: Int64, id: Int64) throws -> (userSurvey: UserSurvey, survey: Survey) {
        guard let found = try userSurvey(id: id), found.userSurvey.userID == userID else {
            throw DomainError.notFound("survey")
        }
        return found
    }

    /// The survey sent as `id` (to whoever it was: its page checks the link's key instead), with its survey.
    package func userSurvey(id: Int64) throws -> (userSurvey: UserSurvey, survey: Survey)? {
        try store.read { try $0.surveys.userSurvey(id: id) }
    }

    /// Stores a user's answers (a JSON object keyed by question id) to their survey, once: checked by
    /// `SurveyValidator`, the code the SDK runs on the device before sending them, and kept as it normalises them,
    /// whether they come from the app's API call or from the survey's page. Not found for someone else's survey; a
    /// `SurveyRefusal` when it was answered already (a second tap, or the other channel first), when the answers
    /// don't fit its questions, or when its definition can't be read.
    package func submitSurvey(userID: Int64, userSurveyID: Int64, answers: JSON) throws -> UserSurvey {
        let now = clock.now()
        return try store.transaction { tx in
            guard let (userSurvey, survey) = try tx.surveys.userSurvey(id: userSurveyID), userSurvey.userID == userID
            else {
                throw DomainError.notFound("survey")
            }
            guard userSurvey.submittedAt == nil else { throw SurveyRefusal(.answeredAlready) }
            let validator = SurveyValidator(try survey.parsedDefinition())
            let problems = validator.validate(json: answers)
            guard problems.isEmpty else { throw SurveyRefusal(.invalidAnswers, problems: problems) }
            let normalized = validator.normalized(try SurveyAnswers(json: answers)).json
            guard try tx.surveys.submit(userID: userID, id: userSurveyID, answers: normalized, at: now) else {
                throw SurveyRefusal(.answeredAlready)
            }
            var submitted = userSurvey
            submitted.submittedAt = now
            submitted.answers = normalized
            return submitted
        }
    }
}
