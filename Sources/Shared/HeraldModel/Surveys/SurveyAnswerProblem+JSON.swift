extension SurveyAnswerProblem {
    /// `{"question_id","code","message"}` (`question_id` null when the answers aren't an object at all): how the
    /// survey check route (`POST /api/admin/surveys/validate`) and the notification card's bridge hand a problem to
    /// the card, which shows `message` under the question.
    public var json: JSON {
        .object([
            ("question_id", questionID.map(JSON.string) ?? .null), ("code", .string(code.rawValue)),
            ("message", .string(message)),
        ])
    }
}
