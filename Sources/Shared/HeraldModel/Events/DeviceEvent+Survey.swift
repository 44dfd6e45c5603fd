extension DeviceEvent {
    /// The answers of a `survey.submitted` event's data (`{"answers":[{"question_id","value"}]}`), keyed by
    /// question id; nil when the data isn't that shape (`DeviceEventValidator` says why). A question id given twice
    /// keeps its last value.
    public static func surveyAnswers(inData data: JSON?) -> SurveyAnswers? {
        guard let items = data?["answers"]?.arrayValue else { return nil }
        var answers = SurveyAnswers()
        for item in items {
            guard let id = SurveyQuestion.identifier(item["question_id"]) else { return nil }
            answers[id] = item["value"] ?? .null
        }
        return answers
    }
}
