import HeraldModel
import Testing

@testable import HeraldSDK

/// Location fixes into enter and exit, with hysteresis and accuracy.
@Suite struct GeofenceStatesTests {
    static let center = GeometryTests.timesSquare
    static let fence = Geofence(
        id: "g", name: "", shape: .circle(center: center, radiusMeters: 100), triggers: [.enter, .exit])
    static let start = Timestamp(iso8601: "2025-05-01T09:30:00Z")!

    /// A fix `meters` north of the centre, `seconds` after the start.
    static func fix(_ meters: Double, accuracy: Double = 10, at seconds: Int64) -> LocationFix {
        LocationFix(
            coordinate: GeometryTests.north(of: center, meters), accuracyMeters: accuracy,
            timestamp: start.adding(.seconds(seconds)))
    }

    func kinds(_ transitions: [GeofenceTransition]) -> [GeofenceTransition.Kind] { transitions.map(\.kind) }

    @Test func entersAndExitsOnceEachDespiteWobble() {
        var states = GeofenceStates()
        var seen: [GeofenceTransition.Kind] = []
        // Walking in from 300 m, wobbling around the outline, then out.
        let path: [Double] = [300, 200, 110, 95, 85, 78, 85, 95, 105, 95, 40, 0, 60, 95, 105, 115, 125, 135, 200]
        for (second, meters) in path.enumerated() {
            seen += kinds(states.update(with: Self.fix(meters, at: Int64(second)), geofences: [Self.fence]))
        }
        #expect(seen == [.enter, .exit])
    }

    @Test func theMarginsAreExact() {
        var states = GeofenceStates(hysteresisMeters: 20)
        #expect(states.update(with: Self.fix(300, at: 0), geofences: [Self.fence]).isEmpty)
        #expect(states.update(with: Self.fix(81, at: 1), geofences: [Self.fence]).isEmpty, "19 m inside: not yet")
        #expect(kinds(states.update(with: Self.fix(79.9, at: 2), geofences: [Self.fence])) == [.enter])
        // Exit needs the margin plus the accuracy: 20 + 10 m outside.
        #expect(states.update(with: Self.fix(129, at: 3), geofences: [Self.fence]).isEmpty)
        #expect(kinds(states.update(with: Self.fix(130.5, at: 4), geofences: [Self.fence])) == [.exit])
    }

    @Test func inaccurateInvalidAndOldFixesAreIgnored() {
        var states = GeofenceStates(maximumAccuracyMeters: 250)
        #expect(states.update(with: Self.fix(0, accuracy: 300, at: 0), geofences: [Self.fence]).isEmpty)
        #expect(states.update(with: Self.fix(0, accuracy: -1, at: 0), geofences: [Self.fence]).isEmpty)
        var nan = Self.fix(0, at: 0)
        nan.coordinate.latitude = .nan
        #expect(states.update(with: nan, geofences: [Self.fence]).isEmpty)
        #expect(kinds(states.update(with: Self.fix(0, at: 10), geofences: [Self.fence])) == [.enter])
        #expect(states.update(with: Self.fix(500, at: 5), geofences: [Self.fence]).isEmpty, "older than the last")
        #expect(kinds(states.update(with: Self.fix(500, at: 11), geofences: [Self.fence])) == [.exit])
    }

    @Test func startingInsideEntersStartingOutsideIsQuiet() {
        var inside = GeofenceStates()
        #expect(kinds(inside.update(with: Self.fix(0, at: 0), geofences: [Self.fence])) == [.enter])
        var outside = GeofenceStates()
        #expect(outside.update(with: Self.fix(500, at: 0), geofences: [Self.fence]).isEmpty)
        #expect(outside.inside["g"] == false)
    }

    @Test func smallGeofencesCanStillBeEntered() {
        let small = Geofence(id: "s", name: "", shape: .circle(center: Self.center, radiusMeters: 16))
        var states = GeofenceStates(hysteresisMeters: 20)
        #expect(kinds(states.update(with: Self.fix(5, at: 0), geofences: [small])) == [.enter])
    }

    @Test func forgottenGeofencesLoseTheirState() {
        var states = GeofenceStates()
        _ = states.update(with: Self.fix(0, at: 0), geofences: [Self.fence])
        _ = states.update(with: Self.fix(0, at: 1), geofences: [])
        #expect(states.inside.isEmpty)
        #expect(kinds(states.update(with: Self.fix(0, at: 2), geofences: [Self.fence])) == [.enter])
    }
}
