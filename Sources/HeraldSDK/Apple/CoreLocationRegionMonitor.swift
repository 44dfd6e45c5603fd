#if canImport(CoreLocation)
    import CoreLocation
    import Foundation
    import HeraldModel

    /// Region monitoring on Apple platforms: watches the circles the SDK picks, and on every region event asks for
    /// a fix and forwards fixes to `Herald.locationDidUpdate(_:)` (the SDK decides enter and exit itself).
    public final class CoreLocationRegionMonitor: NSObject, RegionMonitor, CLLocationManagerDelegate,
        @unchecked Sendable
    {
        private let manager: CLLocationManager

        /// A monitor with its own location manager (create it on the main thread).
        public override init() {
            manager = CLLocationManager()
            super.init()
            manager.delegate = self
        }

        public func monitor(_ regions: [MonitoredRegion]) async {
            await MainActor.run {
                for region in manager.monitoredRegions where region.identifier.hasPrefix("herald.") {
                    manager.stopMonitoring(for: region)
                }
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

        public func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
            manager.requestLocation()
        }

        public func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
            manager.requestLocation()
        }

        public func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
            for location in locations {
                let fix = LocationFix(
                    coordinate: Coordinate(
                        latitude: location.coordinate.latitude, longitude: location.coordinate.longitude),
                    accuracyMeters: location.horizontalAccuracy,
                    timestamp: Timestamp(milliseconds: Int64(location.timestamp.timeIntervalSince1970 * 1000)))
                Task { await Herald.locationDidUpdate(fix) }
            }
        }

        public func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {}
    }
#endif
