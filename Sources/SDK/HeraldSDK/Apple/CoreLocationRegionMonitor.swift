#if canImport(CoreLocation) && os(iOS)
    import CoreLocation
    import Foundation
    import HeraldModel

    /// Geofencing on Apple platforms, with nothing from the app: region monitoring of the circles the SDK picks, the
    /// location permission, significant location changes, and a fix asked for whenever a watched region is crossed.
    /// Every fix goes to the SDK (which decides enter and exit itself). Create it at launch, on the main thread: iOS
    /// relaunches a closed app for a region event and delivers it to the manager made then.
    public final class CoreLocationRegionMonitor: NSObject, RegionMonitor, LocationService, CLLocationManagerDelegate,
        @unchecked Sendable
    {
        /// Used on the main thread only (CLLocationManager wants the run loop it was made on).
        private let manager: CLLocationManager
        private let lock = NSLock()
        private var deliver: (@Sendable (LocationFix) async -> Void)?
        /// Fixes that came before the SDK started updates (a relaunch for a region event), handed over then.
        private var early: [LocationFix] = []
        private var authorizationWaiters: [CheckedContinuation<Void, Never>] = []

        /// A monitor with its own location manager (create it on the main thread).
        public override init() {
            manager = CLLocationManager()
            super.init()
            manager.delegate = self
        }

        // MARK: - RegionMonitor

        /// Watches exactly `regions` (Herald's: identifiers starting `herald.`; the app's own regions are left alone).
        public func monitor(_ regions: [MonitoredRegion]) async {
            await MainActor.run {
                for region in manager.monitoredRegions where region.identifier.hasPrefix("herald.") {
                    manager.stopMonitoring(for: region)
                }
                guard CLLocationManager.isMonitoringAvailable(for: CLCircularRegion.self) else { return }
                for region in regions {
                    let circle = CLCircularRegion(
                        center: CLLocationCoordinate2D(
                            latitude: region.center.latitude, longitude: region.center.longitude),
                        radius: min(region.radiusMeters, manager.maximumRegionMonitoringDistance),
                        identifier: "herald." + region.id)
                    circle.notifyOnEntry = true
                    circle.notifyOnExit = true
                    manager.startMonitoring(for: circle)
                }
            }
        }

        // MARK: - LocationService

        /// What the user allows now.
        public func authorization() async -> Permissions.Location {
            await MainActor.run { Self.location(manager.authorizationStatus) }
        }

        /// Asks for `level`. Not asked yet: waits for the user's answer. Already answered: iOS may show the upgrade
        /// to "Always" later, on its own; the answer now is what is allowed now.
        public func requestAuthorization(_ level: Permissions.Location) async -> Permissions.Location {
            let undetermined = await MainActor.run { () -> Bool in
                let undetermined = manager.authorizationStatus == .notDetermined
                switch level {
                case .always: manager.requestAlwaysAuthorization()
                case .whenInUse: manager.requestWhenInUseAuthorization()
                case .none: break
                }
                return undetermined
            }
            if undetermined, level != .none {
                await withCheckedContinuation { continuation in
                    lock.withLock { authorizationWaiters.append(continuation) }
                    // Answered before the wait began: release it now.
                    Task { @MainActor in
                        if self.manager.authorizationStatus != .notDetermined {
                            self.locationManagerDidChangeAuthorization(self.manager)
                        }
                    }
                }
            }
            return await authorization()
        }

        /// Starts significant location changes (when the device has them) and asks for one fix now.
        public func startUpdates(_ deliver: @escaping @Sendable (LocationFix) async -> Void) async {
            // `withLock`, not `lock()`/`unlock()`: those are unavailable in async functions.
            let early = lock.withLock {
                self.deliver = deliver
                defer { self.early = [] }
                return self.early
            }
            for fix in early { await deliver(fix) }
            await MainActor.run {
                if CLLocationManager.significantLocationChangeMonitoringAvailable() {
                    manager.startMonitoringSignificantLocationChanges()
                }
                manager.requestLocation()
            }
        }

        /// Stops significant location changes.
        public func stopUpdates() async {
            lock.withLock {
                deliver = nil
                early = []
            }
            await MainActor.run { manager.stopMonitoringSignificantLocationChanges() }
        }

        // MARK: - CLLocationManagerDelegate

        /// Crossed a watched region: a fresh fix decides.
        public func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
            manager.requestLocation()
        }

        /// Crossed a watched region: a fresh fix decides.
        public func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
            manager.requestLocation()
        }

        /// Fixes, handed to the SDK (kept until it starts updates).
        public func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
            let fixes = locations.map { location in
                LocationFix(
                    coordinate: Coordinate(
                        latitude: location.coordinate.latitude, longitude: location.coordinate.longitude),
                    accuracyMeters: location.horizontalAccuracy,
                    timestamp: Timestamp(milliseconds: Int64(location.timestamp.timeIntervalSince1970 * 1000)))
            }
            let deliver = lock.withLock {
                if self.deliver == nil { early = Array((early + fixes).suffix(5)) }
                return self.deliver
            }
            guard let deliver else { return }
            Task {
                for fix in fixes { await deliver(fix) }
            }
        }

        /// A fix that couldn't be had: the next region event or significant change asks again.
        public func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {}

        /// The permission changed (or the manager was made): whoever waits for the user's answer gets it.
        public func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
            guard manager.authorizationStatus != .notDetermined else { return }
            let waiters = lock.withLock {
                defer { authorizationWaiters = [] }
                return authorizationWaiters
            }
            for waiter in waiters { waiter.resume() }
        }

        /// The SDK's name for iOS's status.
        static func location(_ status: CLAuthorizationStatus) -> Permissions.Location {
            switch status {
            case .authorizedAlways: return .always
            case .authorizedWhenInUse: return .whenInUse
            default: return .none
            }
        }
    }
#endif
