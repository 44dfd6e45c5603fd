import HeraldModel
import Testing

@testable import HeraldSDK

/// iOS watches 20 regions: the nearest 19 by edge distance and one refresh region.
@Suite struct RegionPickerTests {
    static let here = GeometryTests.timesSquare

    /// Geofences `n` × 300 m north, radius 50 m (plus one big one far away whose edge is near).
    static func fences(_ count: Int) -> [Geofence] {
        (0..<count).map { n in
            Geofence(
                id: String(format: "g%02d", n), name: "",
                shape: .circle(center: GeometryTests.north(of: here, Double(n + 1) * 300), radiusMeters: 50))
        }
    }

    @Test func nearest19ByEdgePlusTheRefreshRegion() {
        var fences = Self.fences(30)
        // Far centre, huge radius: its edge is 100 m away, so it is among the nearest.
        fences.append(
            Geofence(
                id: "huge", name: "",
                shape: .circle(center: GeometryTests.north(of: Self.here, 10_100), radiusMeters: 10_000)))
        let regions = RegionPicker().pick(fences, around: Self.here, refreshRadiusMeters: 100_000)
        #expect(regions.count == 20)
        #expect(regions.first?.id == "huge")
        #expect(Array(regions.dropFirst().prefix(18).map(\.id)) == (0..<18).map { String(format: "g%02d", $0) })
        let refresh = regions.last!
        #expect(refresh.isRefreshRegion && refresh.center == Self.here)
        // The refresh region ends before the nearest geofence left out (g18's edge, 19 × 300 − 50 m away).
        #expect(abs(refresh.radiusMeters - (19 * 300 - 50)) < 1)
    }

    @Test func fewGeofencesAreAllWatchedWithTheServersRefreshDistance() {
        let regions = RegionPicker().pick(Self.fences(3), around: Self.here, refreshRadiusMeters: 1500)
        #expect(regions.map(\.id) == ["g00", "g01", "g02", MonitoredRegion.refreshID])
        #expect(regions.last?.radiusMeters == 1500)
        #expect(regions[0].radiusMeters == 100, "small geofences are watched with iOS's minimum useful radius")
    }

    @Test func noGeofencesStillWatchTheRefreshRegion() {
        #expect(
            RegionPicker().pick([], around: Self.here, refreshRadiusMeters: 1000).map(\.id) == [
                MonitoredRegion.refreshID
            ])
        #expect(RegionPicker(maximumRegions: 0).pick(Self.fences(2), around: Self.here, refreshRadiusMeters: 1).isEmpty)
    }

    @Test func insideAGeofenceItIsNearest() {
        var fences = Self.fences(25)
        fences.append(Geofence(id: "here", name: "", shape: .circle(center: Self.here, radiusMeters: 200)))
        let regions = RegionPicker().pick(fences, around: Self.here, refreshRadiusMeters: 1000)
        #expect(regions.first?.id == "here")
        #expect(regions.count == 20)
    }
}
