import Foundation
import HeraldModel
import Testing

@testable import HeraldSDK

/// Distances and outlines: haversine, circles, polygons.
@Suite struct GeometryTests {
    static let timesSquare = Coordinate(latitude: 40.758, longitude: -73.9855)

    /// A point `meters` north of `point`.
    static func north(of point: Coordinate, _ meters: Double) -> Coordinate {
        Coordinate(latitude: point.latitude + meters / 111_195.08, longitude: point.longitude)
    }

    /// A point `meters` east of `point`.
    static func east(of point: Coordinate, _ meters: Double) -> Coordinate {
        let scale = cos(point.latitude * .pi / 180)
        return Coordinate(latitude: point.latitude, longitude: point.longitude + meters / (111_195.08 * scale))
    }

    @Test func haversineDistances() {
        let paris = Coordinate(latitude: 48.8566, longitude: 2.3522)
        let london = Coordinate(latitude: 51.5074, longitude: -0.1278)
        #expect(abs(paris.distance(to: london) - 343_560) < 1000)
        #expect(Self.timesSquare.distance(to: Self.timesSquare) == 0)
        #expect(abs(Self.timesSquare.distance(to: Self.north(of: Self.timesSquare, 100)) - 100) < 0.5)
        #expect(abs(Self.timesSquare.distance(to: Self.east(of: Self.timesSquare, 250)) - 250) < 1)
    }

    @Test func circlesSignedDistance() {
        let fence = Geofence(id: "g", name: "", shape: .circle(center: Self.timesSquare, radiusMeters: 100))
        #expect(abs(fence.signedDistance(from: Self.timesSquare) + 100) < 0.01)
        #expect(abs(fence.signedDistance(from: Self.north(of: Self.timesSquare, 150)) - 50) < 0.5)
    }

    @Test func polygonsContainAndMeasure() {
        // A 200 m square centred on Times Square.
        let c = Self.timesSquare
        let square = [
            Self.east(of: Self.north(of: c, -100), -100), Self.east(of: Self.north(of: c, -100), 100),
            Self.east(of: Self.north(of: c, 100), 100), Self.east(of: Self.north(of: c, 100), -100),
        ]
        let fence = Geofence(id: "p", name: "", shape: .polygon(square))
        #expect(abs(fence.signedDistance(from: c) + 100) < 1)
        #expect(abs(fence.signedDistance(from: Self.north(of: c, 130)) - 30) < 1)
        #expect(abs(fence.signedDistance(from: Self.east(of: c, 90)) + 10) < 1)
        let bounding = fence.boundingCircle
        #expect(bounding.center.distance(to: c) < 1)
        #expect(abs(bounding.radiusMeters - 141.4) < 1.5)
    }

    @Test func readsTheListedShapes() throws {
        let circle = try #require(
            Geofence(json: [
                "id": "g1", "name": "Brooklyn", "shape": "circle", "center": ["latitude": 40.7, "longitude": -73.9],
                "radius_meters": 150, "triggers": ["enter", "exit", "dwell"], "location_id": 17,
            ]))
        #expect(circle.triggers == [.enter, .exit])
        #expect(circle.locationID == 17)
        let polygon = try #require(
            Geofence(json: [
                "id": 5, "shape": "polygon",
                "polygon": [
                    ["latitude": 1, "longitude": 1], ["latitude": 1, "longitude": 2], ["latitude": 2, "longitude": 2],
                ],
            ]))
        #expect(polygon.id == "5" && polygon.triggers == [.enter])
        for bad: JSON in [
            ["id": "x", "shape": "circle", "center": ["latitude": 91, "longitude": 0], "radius_meters": 10],
            ["id": "x", "shape": "circle", "center": ["latitude": 1, "longitude": 0], "radius_meters": 0],
            ["id": "x", "shape": "polygon", "polygon": [["latitude": 1, "longitude": 1]]],
            ["id": "x", "shape": "hexagon"], ["shape": "circle"],
        ] {
            #expect(Geofence(json: bad) == nil, "\(bad.encodedString)")
        }
    }
}
