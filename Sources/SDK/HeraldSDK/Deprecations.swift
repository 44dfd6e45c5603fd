// HeraldSDK's deprecated names, in one place: each says what replaces it.

extension Herald {
    /// See `HeraldClient.logOut()`.
    @available(*, deprecated, message: "use logout(): it unlinks the user and keeps the install's own pushes")
    public static func logOut() async throws(HeraldError) {
        guard let client else { throw HeraldError(code: .notStarted) }
        try await client.logOut()
    }
}

extension HeraldClient {
    /// The user logged out, the way versions before `logout()` did it: the user, the push token and the segments are
    /// cleared, here and on the server, so the install gets no pushes at all until a token is set again.
    @available(*, deprecated, message: "use logout(): it unlinks the user and keeps the install's own pushes")
    public func logOut() async throws(HeraldError) {
        try await session.logOut()
    }
}
