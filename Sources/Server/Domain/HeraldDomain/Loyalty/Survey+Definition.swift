import HeraldModel
import HeraldStore

extension Survey {
    /// The questions the survey was created with; a `SurveyRefusal` (`unreadableDefinition`) if they can't be read.
    package func parsedDefinition() throws -> SurveyDefinition {
        do {
            return try SurveyDefinition(json: definition)
        } catch {
            throw SurveyRefusal(.unreadableDefinition)
        }
    }
}
