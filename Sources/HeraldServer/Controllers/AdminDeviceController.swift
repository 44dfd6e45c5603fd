import HeraldDomain
import HeraldHTTP
import HeraldModel
import HeraldStore

/// The admin side of the device API: a business's `api_key` / `sandbox_api_key` (issued anew, shown once), the
/// approval of sandbox test devices, and campaign reports.
struct AdminDeviceController: Sendable {
    let store: Store
    let admin: AdminController
    let devices: DeviceService
    let events: DeviceEventService

    func register(in router: inout Router) {
        router.post("/api/admin/businesses/{id}/api_keys", admin.guarded(issueAPIKeys))
        router.post("/api/admin/businesses/{id}/test-devices", admin.guarded(approveTestDevice))
        router.get("/api/admin/businesses/{id}/campaigns/{cid}/report", admin.guarded(report))
    }

    /// New device-API keys: the live key (`api_key`) of the app's installs and the sandbox key
    /// (`sandbox_api_key`) of test builds, to show once; their hashes go to the store.
    static func newAPIKeys() -> (live: String, sandbox: String) {
        (AccessTokens.generate(prefix: "hlive_"), AccessTokens.generate(prefix: "hsbx_"))
    }

    /// `{"keys":["live","sandbox"]}` (both when left out): replaces those keys. Installs already registered keep
    /// their own credentials; new registrations need the new key.
    @Sendable func issueAPIKeys(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let body = try request.jsonObjectBody()
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: ["keys"])
        var which: Set<String> = ["live", "sandbox"]
        if let value = body["keys"], !value.isNull {
            let names = value.arrayValue?.compactMap(\.stringValue) ?? []
            if names.isEmpty || names.count != value.arrayValue?.count
                || !names.allSatisfy({ $0 == "live" || $0 == "sandbox" })
            {
                errors.add("keys", "must be a non-empty list of \"live\" and \"sandbox\"")
            } else {
                which = Set(names)
            }
        }
        try errors.check()
        let keys = Self.newAPIKeys()
        let live = which.contains("live") ? keys.live : nil
        let sandbox = which.contains("sandbox") ? keys.sandbox : nil
        try store.transaction { tx in
            try tx.businesses.setAPIKeys(
                id: business.id, liveHash: live.map(AccessTokens.hash), sandboxHash: sandbox.map(AccessTokens.hash))
        }
        var answer: [(key: String, value: JSON)] = [("id", .int(business.id))]
        if let live { answer.append(("api_key", .string(live))) }
        if let sandbox { answer.append(("sandbox_api_key", .string(sandbox))) }
        return .json(.object(answer))
    }

    /// `{"approval_code"}`: that sandbox install becomes an approved test device.
    @Sendable func approveTestDevice(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let body = try request.jsonObjectBody()
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: ["approval_code"])
        var code: String?
        switch body["approval_code"] {
        case .string(let text)?:
            let normalized = text.trimmingCharacters(in: " ").uppercased()
            if ApprovalCode.isWellFormed(normalized) {
                code = normalized
            } else {
                errors.add(
                    "approval_code", "must be the \(ApprovalCode.length)-character code the sandbox app shows")
            }
        case nil, .null?: errors.add("approval_code", "can't be blank")
        default: errors.add("approval_code", "must be a string")
        }
        try errors.check()
        let (device, standing) = try devices.approveTestDevice(business: business, code: code!)
        return .json(
            .object([
                ("install_id", .string(device.deviceKey)), ("status", .string(standing.status)),
                ("approval_code", .string(standing.approvalCode)),
                ("last_seen_at", JSON(device.install?.lastSeenAt?.iso8601)),
            ]))
    }

    /// The campaign's funnel, read from its counters (fifteen rows whatever its size).
    @Sendable func report(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        guard let campaignID = request.parameter("cid").flatMap(PathID.parse),
            let report = try events.report(businessID: business.id, campaignID: campaignID)
        else { throw HTTPError.notFound("campaign not found") }
        return .json(report.json)
    }
}
