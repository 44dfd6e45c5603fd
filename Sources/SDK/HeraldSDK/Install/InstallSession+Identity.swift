import HeraldModel

/// Who the install belongs to, and its deletion.
extension InstallSession {
    // MARK: - Identity

    /// The longest external id, in characters (as the user import takes them).
    static let externalIDLength = 1...255

    /// The install belongs to the user with `externalID` from now on (`PUT /api/v1/device/user`), vouched for by
    /// `identityToken`. Kept first, so an identity that can't be sent now (offline) is sent by the next
    /// `synchronize()`; one the server refuses (a wrong token) is dropped, and the install then belongs to nobody.
    func identify(externalID: String, identityToken: String) async throws(HeraldError) {
        guard Self.externalIDLength.contains(externalID.count),
            !externalID.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw HeraldError(code: .invalidArgument, detail: "an external id is 1 to 255 printable characters") }
        guard !identityToken.isEmpty else {
            throw HeraldError(code: .invalidArgument, detail: "an identity token is needed (from your backend)")
        }
        let current = try loadedRecord()
        if current.externalID == externalID, current.identityToken == identityToken, current.identitySent { return }
        try update { record in
            record.externalID = externalID
            record.identityToken = identityToken
            record.identitySent = false
        }
        try await synchronize()
    }

    /// The install belongs to nobody from now on (`DELETE /api/v1/device/user`): messages for the user stop reaching
    /// it. Kept first and sent by the next `synchronize()` when it can't be sent now.
    func logout() async throws(HeraldError) {
        let current = try loadedRecord()
        guard current.externalID != nil || !current.identitySent else { return }
        try update { record in
            record.externalID = nil
            record.identityToken = nil
            record.identitySent = false
        }
        try await synchronize()
    }

    /// Sends the identity kept when the server doesn't hold it yet.
    func sendIdentity() async throws(HeraldError) {
        let current = try loadedRecord()
        guard !current.identitySent, current.credential != nil else { return }
        let externalID = current.externalID
        let request: DeviceRequest =
            externalID.map { .identify(externalID: $0, identityToken: current.identityToken ?? "") } ?? .forgetUser
        let response = try await send(request)
        // 404 to a logout: the install belongs to nobody already.
        if response.isSuccess || (externalID == nil && response.status == 404) {
            try update { record in
                if record.externalID == externalID { record.identitySent = true }
                // Now the user's: the details go again (`synchronize`), so the install takes the phone's token.
                if externalID != nil { record.lastSentDigest = nil }
            }
            return
        }
        let error = Self.error(from: response)
        if !error.isRetryable, error.code != .unauthorized, externalID != nil {
            // Refused (a token that doesn't vouch for the id): sending it again can't help. The install should not
            // stay with the user it belonged to before either: it belongs to nobody.
            diagnostics(
                HeraldDiagnostic(
                    code: .requestRejected, message: "PUT /api/v1/device/user answered \(response.status)"))
            try update { record in
                record.externalID = nil
                record.identityToken = nil
                record.identitySent = false
            }
            try? await sendIdentity()
        }
        throw error
    }

    // MARK: - Deleting

    /// `DELETE /api/v1/device`, then forgets the install. Offline, the deletion is kept and retried by
    /// `retryPendingDeletion()`; the install is stopped at once either way.
    func deleteDevice() async throws(HeraldError) {
        stopped = true
        let current = try loadedRecord()
        guard let credential = current.credential ?? current.pendingDeletion else {
            try forget()
            return
        }
        try update { record in
            record.pendingDeletion = credential
            record.credential = nil
        }
        try await finishDeletion(credential)
    }

    /// Retries a deletion `deleteDevice()` could not finish; does nothing when there is none.
    func retryPendingDeletion() async throws(HeraldError) {
        guard let pending = try loadedRecord().pendingDeletion else { return }
        let wasStopped = stopped
        stopped = true
        try await finishDeletion(pending)
        stopped = wasStopped
    }

    private func finishDeletion(_ credential: Credential) async throws(HeraldError) {
        let response = try await transmit(.deleteDevice, signedWith: credential)
        // 401 and 404: the server no longer knows this install; nothing left to delete.
        guard response.isSuccess || response.status == 401 || response.status == 404 else {
            throw Self.error(from: response)
        }
        try forget()
    }

    /// Removes the stored install; the next call starts a new one.
    private func forget() throws(HeraldError) {
        do {
            try store.clear()
        } catch {
            throw HeraldError(
                code: error.code == .unavailable ? .storageUnavailable : .storage, detail: error.description)
        }
        record = nil
    }

    /// Allows calls again after `deleteDevice()` (a new install).
    func restart() { stopped = false }
}
