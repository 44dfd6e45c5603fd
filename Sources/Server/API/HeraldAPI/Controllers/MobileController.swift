import HeraldCrypto
import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// The Punchh-compatible mobile API under `/api2/mobile/` (docs/openapi.json): accounts, push tokens and the inbox.
struct MobileController: Sendable {
    let auth: MobileAuthenticator
    let accounts: AccountService
    let inbox: InboxService
    let passwords: PasswordHasher
    let clock: WallClock
    let tokenLifetime: Duration
    /// A hash (at the configured cost) of a password nobody knows, checked when a login's email is unknown so
    /// that failure takes as long as a wrong password: timing doesn't tell which emails have accounts.
    let dummyHash: String
    let inboxPages = InboxPageCache()
    /// Rate limits on sign-ups, logins and password checks.
    var limits: RateLimits = .unlimited
    /// Where passwords are hashed and checked.
    var passwordPool = PasswordPool(slots: 1024)
    /// The codes that prove a sign-up owns an imported customer's email, and where they are mailed.
    var emailProof: EmailProof? = nil
    var mailer: any Mailer = LogMailer(logger: .disabled)

    func register(in router: inout Router) {
        // Offloaded: these hash passwords (tens of milliseconds of a core each), on the server's worker threads
        // (as many as `--password-threads`) while the HTTP threads serve everyone else.
        router.post("/api2/mobile/users", offloaded: true, signUp)
        router.post("/api2/mobile/users/login", offloaded: true, logIn)
        router.put("/api2/mobile/users", offloaded: true, updateProfile)
        router.delete("/api2/mobile/users/logout", logOut)
        router.get("/api2/mobile/users/profile", profile)
        router.get("/api2/mobile/notifications", listNotifications)
        router.delete("/api2/mobile/notifications/{id}", deleteNotification)
        router.put("/api2/mobile/offers/mark_read", markRead)
    }

    // MARK: - Accounts

    @Sendable func signUp(_ request: HTTPRequest) throws -> HTTPResponse {
        let parameters = try auth.parameters(request)
        let client = try auth.client(request, parameters)
        let fields = try userFields(parameters)
        var errors = FieldErrors()
        let email = AccountInput.email(fields["email"], &errors, required: true)
        let password = AccountInput.password(
            fields["password"], confirmation: fields["password_confirmation"], &errors, required: true)
        let firstName = AccountInput.name(fields["first_name"], "first_name", &errors)
        let lastName = AccountInput.name(fields["last_name"], "last_name", &errors)
        let phone = AccountInput.phone(fields["phone"], &errors)
        let token = AccountInput.pushToken(fields, &errors)
        try errors.check()
        try limits.checkAuth(address: request.remoteAddress, account: nil)

        // Checked first only to spare a password hash: the database's constraint decides, even for two racing. A
        // user an import made (no password) signs up into that record once the email is proven.
        try accounts.checkEmailAvailable(businessID: client.business.id, email: email!)
        let proven = try proveImportedEmail(fields["email_code"], email: email!, request, client.business)
        let hash = try passwordPool.run { try passwords.hash(password!) }
        let (user, device) = try accounts.signUp(
            NewUser(
                businessID: client.business.id, email: email!, passwordHash: hash, firstName: firstName ?? "",
                lastName: lastName ?? "", phone: phone ?? nil),
            business: client.business, emailProven: proven
        ) { user in try deviceRegistration(request, userID: user.id, token: token) }
        let now = clock.now()
        return try sessionResponse(for: user, business: client.business, device: device, at: now)
    }

    /// For a sign-up with the email of an imported customer (and an import the business does not trust): without
    /// `email_code`, mails a new code to the address and answers 422 on `email_code` (429 once the account had its
    /// codes for the hour); with a wrong, expired or used-up one, 422 (counted as a failed password check of that
    /// account from this address). True once proven. The tries are counted in the store (`EmailCodePolicy`).
    private func proveImportedEmail(_ offered: JSON?, email: String, _ request: HTTPRequest, _ business: Business)
        throws -> Bool
    {
        guard let emailProof, let imported = try accounts.importedAwaitingProof(business: business, email: email)
        else { return false }
        let policy = accounts.emailCodes
        guard let offered = offered?.stringValue, !offered.isEmpty else {
            let code = EmailProof.newCode()
            switch try accounts.issueEmailCode(
                userID: imported.id, codeHash: emailProof.hash(code, userID: imported.id))
            {
            case .issued:
                let minutes = Int(policy.lifetime / .seconds(60))
                try mailer.send(
                    Mail(
                        to: email, subject: "Your \(business.name) sign-up code",
                        body: "Your code is \(code). It is valid for \(minutes) minutes."))
                throw HTTPError.invalid(
                    "email_code", "we already know this email: a code was mailed to it; sign up again with that code")
            case .tooMany(let retryAt):
                let seconds = max(1, Int((retryAt.milliseconds - clock.now().milliseconds + 999) / 1000))
                throw HTTPError(
                    HTTPStatus(429), field: "email_code",
                    "\(policy.codesPerWindow) codes were mailed to this email within the hour: retry in \(seconds) s",
                    headers: [(name: "retry-after", value: String(seconds))])
            }
        }
        let account = "\(business.id):\(email)"
        try limits.checkAuth(address: request.remoteAddress, account: account)
        let attempt = try accounts.tryEmailCode(
            userID: imported.id, codeHash: emailProof.hash(offered, userID: imported.id))
        limits.recordPasswordCheck(attempt == .proven, address: request.remoteAddress, account: account)
        switch attempt {
        case .proven:
            return true
        case .wrong(let left) where left > 0:
            throw HTTPError.invalid(
                "email_code", "is wrong: the code mailed may be tried \(left) more time\(left == 1 ? "" : "s")")
        case .wrong, .unusable:
            throw HTTPError.invalid(
                "email_code", "has expired or was tried too often: sign up without it for a new one")
        }
    }

    @Sendable func logIn(_ request: HTTPRequest) throws -> HTTPResponse {
        let parameters = try auth.parameters(request)
        let client = try auth.client(request, parameters)
        let fields = try userFields(parameters)
        var errors = FieldErrors()
        let token = AccountInput.pushToken(fields, &errors)
        guard let emailText = fields["email"]?.stringValue, let password = fields["password"]?.stringValue,
            !emailText.isEmpty, !password.isEmpty
        else {
            throw HTTPError.invalid("base", "Email and password are required.")
        }
        try errors.check()
        let email = AccountInput.normalizedEmail(emailText)
        let account = "\(client.business.id):\(email)"
        try limits.checkAuth(address: request.remoteAddress, account: account)
        let user = try accounts.user(businessID: client.business.id, email: email)
        // Verify against a dummy hash when the email is unknown, so timing doesn't tell which emails exist.
        let valid = try passwordPool.run { passwords.verify(password, against: user?.passwordHash ?? dummyHash) }
        limits.recordPasswordCheck(user != nil && valid, address: request.remoteAddress, account: account)
        guard let user, valid else { throw HTTPError.invalid("base", "Incorrect information submitted. Please retry.") }
        let device = try deviceRegistration(request, userID: user.id, token: token).map {
            try accounts.registerDevice(businessID: client.business.id, userID: user.id, $0)
        }
        return try sessionResponse(for: user, business: client.business, device: device, at: clock.now())
    }

    @Sendable func updateProfile(_ request: HTTPRequest) throws -> HTTPResponse {
        let (parameters, _, session, user) = try auth.signedIn(request)
        let fields = try userFields(parameters)
        var errors = FieldErrors()
        var changes = UserChanges()
        if fields["email"] != nil { changes.email = AccountInput.email(fields["email"], &errors, required: true) }
        if fields["first_name"] != nil {
            changes.firstName = AccountInput.name(fields["first_name"], "first_name", &errors)
        }
        if fields["last_name"] != nil {
            changes.lastName = AccountInput.name(fields["last_name"], "last_name", &errors)
        }
        if fields["phone"] != nil { changes.phone = AccountInput.phone(fields["phone"], &errors) }
        var newPassword: String?
        if fields["password"] != nil {
            newPassword = AccountInput.password(
                fields["password"], confirmation: fields["password_confirmation"], &errors, required: true)
            if let current = fields["current_password"]?.stringValue {
                let account = "\(user.businessID):\(user.email ?? "#\(user.id)")"
                try limits.checkAuth(address: request.remoteAddress, account: account)
                let valid = try passwordPool.run { passwords.verify(current, against: user.passwordHash) }
                limits.recordPasswordCheck(valid, address: request.remoteAddress, account: account)
                if !valid { errors.add("current_password", "is invalid") }
            } else {
                errors.add("current_password", "can't be blank")
            }
        }
        let token = AccountInput.pushToken(fields, &errors)
        try errors.check()
        if let newPassword { changes.passwordHash = try passwordPool.run { try passwords.hash(newPassword) } }
        let registration = try token.map { token in
            DeviceRegistration(
                deviceKey: try deviceKey(request, userID: user.id, platform: token.platform, session: session),
                platform: token.platform, token: token.value, userAgent: request.header("user-agent"),
                sessionDeviceID: session.deviceID)
        }
        let updated = try accounts.updateProfile(user: user, changes, device: registration)
        return .json { Presenter.write(updated, to: &$0) }
    }

    @Sendable func logOut(_ request: HTTPRequest) throws -> HTTPResponse {
        let (_, _, session, user) = try auth.signedIn(request)
        let named = request.header("punchh-app-device-id").flatMap { Self.isDeviceKey($0) ? $0 : nil }
        try accounts.logOut(session: session, user: user, deviceKey: named)
        return .json(.object([]))
    }

    @Sendable func profile(_ request: HTTPRequest) throws -> HTTPResponse {
        let (_, _, _, user) = try auth.signedIn(request)
        return .json { Presenter.write(user, to: &$0) }
    }

    // MARK: - Inbox

    @Sendable func listNotifications(_ request: HTTPRequest) throws -> HTTPResponse {
        let (parameters, _, _, user) = try auth.signedIn(request)
        var quantity = 10
        if parameters.has("qty") {
            guard let value = parameters.int64("qty"), (1...100).contains(value) else {
                throw HTTPError.invalid("qty", "must be a number from 1 to 100")
            }
            quantity = Int(value)
        }
        var page = 1
        if parameters.has("page") {
            guard let value = parameters.int64("page"), (1...100_000).contains(value) else {
                throw HTTPError.invalid("page", "must be a positive number")
            }
            page = Int(value)
        }
        // The inbox version validates both the cached page and the client's copy.
        let etag = "W/\"inbox-\(user.id)-\(user.inboxVersion)-\(quantity)-\(page)\""
        let key = InboxPageCache.Key(userID: user.id, version: user.inboxVersion, quantity: quantity, page: page)
        let body = try inboxPages.page(key) {
            let entries = try inbox.page(userID: user.id, limit: quantity, offset: (page - 1) * quantity)
            var writer = JSONWriter(capacity: 64 + entries.count * 320)
            writer.beginArray()
            for entry in entries { Presenter.write(entry, to: &writer) }
            writer.endArray()
            return writer.bytes
        }
        if request.ifNoneMatch(etag) {
            // The length is the 200's it stands for (RFC 9110 §8.6), hence the page first (usually cached).
            return HTTPResponse(
                status: .notModified, headers: [("etag", etag), ("content-length", String(body.count))])
        }
        var response = HTTPResponse.json(body)
        response.headers.append(("etag", etag))
        response.headers.append(("cache-control", "private, no-cache"))
        return response
    }

    @Sendable func deleteNotification(_ request: HTTPRequest) throws -> HTTPResponse {
        let (_, _, _, user) = try auth.signedIn(request)
        guard let id = request.parameter("id").flatMap(PathID.parse),
            try inbox.delete(userID: user.id, id: id)
        else { throw HTTPError.notFound("notification not found") }
        return .json(.object([]))
    }

    @Sendable func markRead(_ request: HTTPRequest) throws -> HTTPResponse {
        let (parameters, _, _, user) = try auth.signedIn(request)
        let eventType = parameters.has("event_type") ? parameters.string("event_type") : "read_through_app"
        guard eventType == "read_through_app" || eventType == "app_open_via_push" else {
            throw HTTPError.invalid("event_type", "must be read_through_app or app_open_via_push")
        }
        let ids = try parameters.idList("user_notifications") ?? []
        let rewardIDs = try parameters.idList("rewards") ?? []
        guard ids.count + rewardIDs.count <= 1000 else { throw HTTPError.invalid("base", "at most 1000 ids at once") }
        let marks = try inbox.markRead(
            userID: user.id, entries: ids, rewards: rewardIDs, event: eventType == "app_open_via_push" ? .opened : nil)
        return .json(
            .object([
                ("user_notifications", .array(marks.entries.map { .int($0) })),
                ("rewards", .array(marks.rewards.map { .int($0) })),
                ("badge", .int(Int64(marks.badge))),
            ]))
    }

    // MARK: - Helpers

    /// The `user` object of the body (fields may also sit at the top level, as some clients send them).
    private func userFields(_ parameters: RequestParameters) throws -> JSON {
        guard let user = parameters.body["user"] else { return parameters.body }
        guard case .object = user else { throw HTTPError.invalid("user", "must be an object") }
        return user
    }

    private func deviceKey(_ request: HTTPRequest, userID: Int64, platform: PushPlatform, session: Session?) throws
        -> String
    {
        if let header = request.header("punchh-app-device-id"), Self.isDeviceKey(header) { return header }
        return try accounts.deviceKey(userID: userID, platform: platform, sessionDeviceID: session?.deviceID)
    }

    /// Whether a `punchh-app-device-id` is taken as the device's key (else one is derived from the user).
    private static func isDeviceKey(_ header: String) -> Bool { !header.isEmpty && header.utf8.count <= 200 }

    /// The calling device and its token, if the request carried one or named its device.
    private func deviceRegistration(_ request: HTTPRequest, userID: Int64, token: AccountInput.PushToken?) throws
        -> DeviceRegistration?
    {
        let header = request.header("punchh-app-device-id")
        guard token != nil || (header?.isEmpty == false) else { return nil }
        let platform = token?.platform ?? AccountInput.platform(userAgent: request.header("user-agent"))
        return DeviceRegistration(
            deviceKey: try deviceKey(request, userID: userID, platform: platform, session: nil), platform: platform,
            token: token.map { $0.value }, userAgent: request.header("user-agent"))
    }

    private func sessionResponse(for user: User, business: Business, device: Device?, at now: Timestamp) throws
        -> HTTPResponse
    {
        let token = AccessTokens.generate(prefix: "hat_")
        let expires = now.adding(tokenLifetime)
        _ = try accounts.startSession(
            tokenHash: AccessTokens.hash(token), user: user, deviceID: device?.id, expiresAt: expires)
        return .json { writer in
            writer.beginObject()
            writer.key("access_token")
            writer.beginObject()
            writer.field("token", token)
            writer.field("seconds_to_expire", expires.seconds - now.seconds)
            writer.field("created_at", now.iso8601)
            writer.endObject()
            writer.key("user")
            Presenter.write(user, to: &writer)
            writer.endObject()
        }
    }
}
