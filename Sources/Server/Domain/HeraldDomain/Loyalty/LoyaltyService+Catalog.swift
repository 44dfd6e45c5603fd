import HeraldModel
import HeraldStore

// What a business offers and asks: its offers and its surveys, as the operator writes them.
extension LoyaltyService {
    /// Adds `offer` (its id and creation time are the store's) to its business's catalogue.
    package func createOffer(_ offer: Offer) throws -> Offer {
        let now = clock.now()
        return try store.transaction { try $0.offers.insert(offer, at: now) }
    }

    /// The offer `id` of `businessID`, or nil.
    package func offer(businessID: Int64, id: Int64) throws -> Offer? {
        try store.read { try $0.offers.find(businessID: businessID, id: id) }
    }

    /// Adds a survey of `definition` (checked by `SurveyDefinition`), answered in the app or on `url`.
    package func createSurvey(businessID: Int64, _ definition: SurveyDefinition, url: String?) throws -> Survey {
        let now = clock.now()
        return try store.transaction { tx in
            try tx.surveys.insert(
                businessID: businessID, title: definition.title, definition: definition.json, url: url, at: now)
        }
    }
}
