import HeraldCrypto
import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// The device API the SDK speaks, under `/api/v1/`: registration (with the business's `api_key` or
/// `sandbox_api_key`, unsigned, optionally with proof of a known device's user: `access_token`, or `external_id` with
/// `identity_token`) and, signed with the install's own credential (`DeviceAuthenticator`), its updates,
/// segments, deletion, pulls, messages and lifecycle events.
struct DeviceController: Sendable {
    let auth: DeviceAuthenticator
    /// Issues install credentials (their secrets sealed by the domain).
    let access: AccessService
    let devices: DeviceService
    let events: DeviceEventService
    let verifier: IdentityVerifier

    func register(in router: inout Router) {
        router.post("/api/v1/installs", registerInstall)
        router.put("/api/v1/installs/current", updateInstall)
        router.put("/api/v1/device/segments", setSegments)
        router.delete("/api/v1/device", deleteDevice)
        router.post("/api/v1/notifications/pull", pull)
        router.get("/api/v1/notifications/{id}", showMessage)
        router.post("/api/v1/events", recordEvents)
    }

    // MARK: - Installs

    @Sendable func registerInstall(_ request: HTTPRequest) throws -> HTTPResponse {
        try auth.chargeRegistration(request)
        // A signed registration is the install rotating its credential: the signature must hold.
        let signer = DeviceAuthenticator.isSigned(request) ? try auth.verify(request) : nil
        let body = try request.jsonObjectBody()
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: DeviceInput.registrationFields.union(DeviceInput.proofFields))
        var apiKey: String?
        switch body["api_key"] {
        case .string(let key)? where !key.isEmpty: apiKey = key
        case nil, .null?, .string?: errors.add("api_key", "can't be blank")
        default: errors.add("api_key", "must be a string")
        }
        let installID = DeviceInput.installID(body["install_id"], &errors)
        let details = DeviceInput.details(body, userAgent: request.header("user-agent"), &errors)
        let offered = DeviceInput.proof(body, &errors)
        try errors.check()
        let (business, workspace) = try auth.business(apiKey: apiKey!)
        if let signer, signer.businessID != business.id || signer.deviceKey != installID! {
            throw auth.refusal("the request is signed by another install's credential")
        }
        let proof = try offered.map { try checked($0, business: business) }
        let (credential, secret) = try access.issueInstallCredential()
        let registered = try devices.register(
            installID: installID!, details: details!, business: business, workspace: workspace,
            credential: credential, signedBy: signer?.id, proof: proof)
        var answer: [(key: String, value: JSON)] = [
            ("install_id", .string(registered.device.deviceKey)),
            ("credential", .object([("key_id", .string(credential.keyID)), ("secret", .string(secret))])),
            ("config", config(workspace: workspace)),
        ]
        if let testDevice = registered.testDevice { answer.append(("test_device", testDevice.json)) }
        return .json(.object(answer), status: registered.isNew ? .created : .ok)
    }

    /// The proof a registration offers, checked: 403 on `access_token` when it is no valid token of a user of
    /// `business`, on `identity_token` when it does not vouch for `external_id`.
    private func checked(_ offered: DeviceInput.OfferedProof, business: Business) throws -> OwnershipProof {
        var proof = OwnershipProof()
        if let token = offered.accessToken {
            guard let userID = try auth.user(accessToken: token, business: business) else {
                throw HTTPError(.forbidden, field: "access_token", "is not a valid access token of this business")
            }
            proof.userID = userID
        }
        if let identity = offered.identity {
            guard try verifier.vouches(token: identity.token, for: identity.externalID, businessID: business.id) else {
                throw HTTPError(.forbidden, field: "identity_token", IdentityVerifier.refusal)
            }
            proof.externalID = identity.externalID
        }
        return proof
    }

    /// What the SDK may tune itself by.
    private func config(workspace: Install.Workspace) -> JSON {
        .object([
            ("workspace", .string(workspace.rawValue)),
            ("max_events_per_batch", .int(Int64(DeviceEventValidator.maximumBatchSize))),
            ("max_segments", .int(Int64(DeviceInput.maximumSegments))),
            ("pull_limit", .int(Int64(devices.options.pullLimit))),
            ("signature_window_seconds", .int(DeviceRequestSignature.allowedSkewSeconds)),
        ])
    }

    @Sendable func updateInstall(_ request: HTTPRequest) throws -> HTTPResponse {
        let device = try auth.install(request)
        let body = try request.jsonObjectBody()
        var errors = FieldErrors()
        for field in ["api_key", "install_id"] where body[field] != nil {
            errors.add(field, "can't be changed here: register again (POST /api/v1/installs)")
        }
        errors.refuseUnknown(body, known: DeviceInput.registrationFields)
        let details = DeviceInput.details(body, userAgent: request.header("user-agent"), &errors)
        try errors.check()
        let updated = try devices.update(device, details: details!)
        return .json(try installJSON(updated))
    }

    /// An install as the device API shows it to itself.
    private func installJSON(_ device: Device) throws -> JSON {
        let install = device.install
        var pairs: [(key: String, value: JSON)] = [
            ("install_id", .string(device.deviceKey)), ("workspace", JSON(install?.workspace.rawValue)),
            ("push_token_type", .string(device.platform.rawValue)), ("has_push_token", .bool(device.token != nil)),
            ("apns_environment", JSON(install?.apnsEnvironment)), ("app_version", JSON(install?.appVersion)),
            ("os_version", JSON(install?.osVersion)), ("device_model", JSON(install?.deviceModel)),
            ("locale", JSON(install?.locale)), ("timezone", JSON(install?.timeZone)),
            ("sdk_version", JSON(install?.sdkVersion)),
            (
                "permissions",
                .object([
                    ("notifications", install?.notificationsEnabled.map { JSON.bool($0) } ?? .null),
                    ("location", JSON(install?.locationPermission)),
                ])
            ),
            ("segments", .array(try devices.segments(device).map { .string($0) })),
        ]
        if let testDevice = devices.testDevice(device) { pairs.append(("test_device", testDevice.json)) }
        return .object(pairs)
    }

    @Sendable func setSegments(_ request: HTTPRequest) throws -> HTTPResponse {
        let device = try auth.install(request)
        let body = try request.jsonObjectBody()
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: ["segments"])
        let segments: [String]?
        if let value = body["segments"], !value.isNull {
            segments = DeviceInput.segments(value, field: "segments", &errors)
        } else {
            errors.add("segments", "can't be blank (send [] for none)")
            segments = nil
        }
        try errors.check()
        try devices.setSegments(device, segments!)
        return .json(.object([("segments", .array(try devices.segments(device).map { .string($0) }))]))
    }

    @Sendable func deleteDevice(_ request: HTTPRequest) throws -> HTTPResponse {
        let device = try auth.install(request)
        try devices.delete(device)
        return HTTPResponse(status: .noContent)
    }

    // MARK: - Messages

    /// A pull signed the same as an earlier one (a captured pull replayed within the signature window) is answered
    /// what that one was, never messages that arrived since (`DeviceService.pull(_:signature:)`). The signature is
    /// keyed in lower case, as it is checked.
    @Sendable func pull(_ request: HTTPRequest) throws -> HTTPResponse {
        let device = try auth.install(request)
        let signature = request.header(DeviceRequestSignature.signatureHeader)?.lowercased()
        return .list(try devices.pull(device, signature: signature)) { $0.json }
    }

    @Sendable func showMessage(_ request: HTTPRequest) throws -> HTTPResponse {
        let device = try auth.install(request)
        guard let id = request.parameter("id").flatMap(PathID.parse), id > 0,
            let message = try devices.message(device, id: id)
        else { throw HTTPError.notFound("message not found") }
        return .json(message.json)
    }

    // MARK: - Events

    @Sendable func recordEvents(_ request: HTTPRequest) throws -> HTTPResponse {
        let device = try auth.install(request)
        let body = try request.jsonObjectBody()
        let results: [DeviceEventResult]
        do {
            results = try events.record(body, from: device)
        } catch let problem as DeviceEventProblem {
            throw HTTPError.invalid(problem.field, problem.message)
        }
        return .json(
            .object([("data", .object([("results", .array(results.map(\.json)))]))]), status: .accepted)
    }
}
