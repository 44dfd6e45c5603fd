import HeraldModel

/// Geofencing on the device: fetches the geofences near the device (`GET /api/v1/geofences`, with `If-None-Match`),
/// has the system watch the nearest (`RegionPicker`), turns location fixes into crossings (`GeofenceStates`),
/// posts each crossing the geofence has a trigger for (`POST /api/v1/geofence-events` with an `Idempotency-Key`
/// kept across retries), and hands the notifications that come back to the arrival path.
actor GeofenceTracker {
    typealias Arrive = @Sendable (HeraldMessage, ArrivalSource) async -> Void

    private let session: InstallSession
    private let store: StoredValue
    private let clock: WallClock
    private let random: RandomSource
    private let monitor: (any RegionMonitor)?
    private let picker: RegionPicker
    private let diagnostics: @Sendable (HeraldDiagnostic) -> Void
    private var arrive: Arrive?
    private var list: GeofenceList?
    private var states: GeofenceStates
    private var pending: [PendingGeofenceEvent] = []
    private var monitored: [MonitoredRegion] = []
    private var loaded = false
    private var posting = false

    /// Crossings older than this are not posted any more.
    static let pendingLifetime: Duration = .seconds(3600)
    /// The most crossings kept waiting.
    static let maximumPending = 50

    init(
        session: InstallSession, storage: any PersistentStorage, clock: WallClock, random: RandomSource,
        monitor: (any RegionMonitor)?, options: HeraldConfiguration.Options,
        diagnostics: @escaping @Sendable (HeraldDiagnostic) -> Void
    ) {
        self.session = session
        store = StoredValue(storage: storage, key: "geofences")
        self.clock = clock
        self.random = random
        self.monitor = monitor
        picker = RegionPicker(maximumRegions: options.maximumMonitoredRegions)
        states = GeofenceStates(
            hysteresisMeters: options.geofenceHysteresisMeters,
            maximumAccuracyMeters: options.geofenceMaximumAccuracyMeters)
        self.diagnostics = diagnostics
    }

    /// Where the notifications of a crossing go.
    func setArrive(_ arrive: @escaping Arrive) { self.arrive = arrive }

    /// The geofences known now.
    var geofences: [Geofence] { list?.geofences ?? [] }
    /// The regions the system was last asked to watch.
    var monitoredRegions: [MonitoredRegion] { monitored }
    /// Crossings not yet posted.
    var pendingCount: Int { pending.count }

    /// At launch, before any fix: the system watches the regions of the stored list again (picked around where it
    /// was fetched), and crossings left unposted are posted.
    func resume() async {
        load()
        if let list, monitored.isEmpty { await pick(around: list.around) }
        await postPending()
    }

    /// A new location fix: fetch the list again if due, move the states, post crossings, re-pick the regions.
    func locationDidUpdate(_ fix: LocationFix) async {
        guard fix.coordinate.isValid else { return }
        load()
        let now = clock.now()
        var refreshed = false
        if list?.needsRefresh(at: fix.coordinate, now: now) ?? true {
            refreshed = await refresh(around: fix.coordinate)
        }
        if let list {
            for transition in states.update(with: fix, geofences: list.geofences) {
                guard let geofence = list.geofences.first(where: { $0.id == transition.geofenceID }),
                    geofence.triggers.contains(transition.kind)
                else { continue }
                pending.append(PendingGeofenceEvent(key: random.uuid(), transition: transition))
            }
            if pending.count > Self.maximumPending { pending.removeFirst(pending.count - Self.maximumPending) }
            save()
            // The regions follow the list: picked around where it was fetched, again when it is fetched again.
            if refreshed || monitored.isEmpty { await pick(around: list.around) }
        }
        await postPending()
    }

    /// Fetches the list for `point` (a 304 keeps the one held); answers whether the list is now current.
    @discardableResult
    func refresh(around point: Coordinate) async -> Bool {
        let response: TransportResponse
        do {
            response = try await session.send(.geofences(around: point, etag: list?.etag))
        } catch {
            return false
        }
        let now = clock.now()
        switch response.status {
        case 304:
            list?.fetchedAt = now
            list?.around = point
        case 200..<300:
            guard let body = try? JSON.parse(response.body),
                let fetched = GeofenceList(body: body, etag: response.header("ETag"), fetchedAt: now, around: point)
            else {
                diagnostics(
                    HeraldDiagnostic(code: .malformedResponse, message: "GET /api/v1/geofences answered no list"))
                return false
            }
            list = fetched
        default:
            if !InstallSession.error(from: response).isRetryable {
                diagnostics(
                    HeraldDiagnostic(
                        code: .requestRejected, message: "GET /api/v1/geofences answered \(response.status)"))
            }
            return false
        }
        save()
        return list != nil
    }

    /// Posts waiting crossings, oldest first, each with its own key; stops at the first that can't be sent now.
    func postPending() async {
        guard !posting else { return }
        posting = true
        defer { posting = false }
        let oldest = clock.now().adding(.zero - Self.pendingLifetime)
        pending.removeAll { $0.occurredAt < oldest }
        while let event = pending.first {
            let response: TransportResponse
            do {
                response = try await session.send(.geofenceEvent(event.body, idempotencyKey: event.key))
            } catch {
                if error.isRetryable || error.code == .unauthorized { break }
                pending.removeFirst()
                continue
            }
            if response.isSuccess {
                pending.removeFirst()
                save()
                let geofence = list?.geofences.first { $0.id == event.geofenceID }
                let messages = ((try? JSON.parse(response.body))?["data"]?["notifications"]?.arrayValue ?? [])
                    .compactMap(HeraldMessage.init(json:))
                for message in messages {
                    await arrive?(message, .geofence(locationID: geofence?.locationID))
                }
            } else if InstallSession.error(from: response).isRetryable {
                break
            } else {
                diagnostics(
                    HeraldDiagnostic(
                        code: .requestRejected, message: "POST /api/v1/geofence-events answered \(response.status)"))
                pending.removeFirst()
            }
        }
        save()
    }

    /// Forgets everything and stops watching regions (deleteMyData).
    func clear() async {
        list = nil
        states = GeofenceStates(
            hysteresisMeters: states.hysteresisMeters, maximumAccuracyMeters: states.maximumAccuracyMeters)
        pending = []
        try? store.clear()
        loaded = true
        if !monitored.isEmpty {
            monitored = []
            await monitor?.monitor([])
        }
    }

    private func pick(around point: Coordinate) async {
        guard let list, let monitor else { return }
        let regions = picker.pick(list.geofences, around: point, refreshRadiusMeters: list.refreshDistanceMeters)
        guard regions != monitored else { return }
        monitored = regions
        await monitor.monitor(regions)
    }

    private func load() {
        guard !loaded else { return }
        do {
            if let json = try store.load() {
                list = json["list"].flatMap(GeofenceList.init(json:))
                let inside = (json["inside"]?.objectValue ?? []).reduce(into: [String: Bool]()) {
                    $0[$1.key] = $1.value.boolValue ?? false
                }
                states = GeofenceStates(
                    inside: inside, lastFixTime: json["last_fix_at"]?.int64Value.map(Timestamp.init(milliseconds:)),
                    hysteresisMeters: states.hysteresisMeters, maximumAccuracyMeters: states.maximumAccuracyMeters)
                pending = (json["pending"]?.arrayValue ?? []).compactMap(PendingGeofenceEvent.init(json:))
            }
            loaded = true
        } catch {
            // Unavailable: work from memory; saved once storage can be read.
        }
    }

    private func save() {
        guard loaded else { return }
        var pairs: [(key: String, value: JSON)] = []
        if let list { pairs.append(("list", list.json)) }
        pairs.append(("inside", .object(states.inside.sorted { $0.key < $1.key }.map { ($0.key, .bool($0.value)) })))
        if let last = states.lastFixTime { pairs.append(("last_fix_at", .int(last.milliseconds))) }
        pairs.append(("pending", .array(pending.map(\.json))))
        do {
            try store.save(.object(pairs))
        } catch {
            diagnostics(HeraldDiagnostic(code: .storage, message: "geofences not stored: \(error)"))
        }
    }
}
