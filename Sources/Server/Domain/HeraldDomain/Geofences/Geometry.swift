import Foundation
import HeraldStore

/// Distances and containment on the Earth's surface, as a phone's location fixes need them (a sphere is close
/// enough at geofence scales).
package enum Geometry {
    /// The Earth's mean radius, in meters.
    static let earthRadius = 6_371_008.8

    /// The great-circle distance between two points, in meters (haversine).
    package static func distance(_ a: Geofence.Point, _ b: Geofence.Point) -> Double {
        let φ1 = a.latitude * .pi / 180
        let φ2 = b.latitude * .pi / 180
        let Δφ = (b.latitude - a.latitude) * .pi / 180
        let Δλ = (b.longitude - a.longitude) * .pi / 180
        let h = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * earthRadius * asin(min(1, sqrt(h)))
    }

    /// Whether `point` is inside the polygon `corners` (even-odd rule; corners in order, not repeated).
    package static func contains(_ corners: [Geofence.Point], _ point: Geofence.Point) -> Bool {
        var inside = false
        var previous = corners.count - 1
        for current in corners.indices {
            let (a, b) = (corners[current], corners[previous])
            if (a.latitude > point.latitude) != (b.latitude > point.latitude) {
                let crossing =
                    (b.longitude - a.longitude) * (point.latitude - a.latitude) / (b.latitude - a.latitude)
                    + a.longitude
                if point.longitude < crossing { inside.toggle() }
            }
            previous = current
        }
        return inside
    }

    /// The circle around a polygon: its corners' mean, and the distance to the farthest corner.
    package static func boundingCircle(_ corners: [Geofence.Point]) -> (center: Geofence.Point, radius: Double) {
        let center = Geofence.Point(
            latitude: corners.map(\.latitude).reduce(0, +) / Double(corners.count),
            longitude: corners.map(\.longitude).reduce(0, +) / Double(corners.count))
        return (center, corners.map { distance(center, $0) }.max() ?? 0)
    }

    /// The latitude and longitude ranges within `meters` of `point` (a box around the circle).
    package static func box(around point: Geofence.Point, meters: Double) -> (
        latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>
    ) {
        let latitudeDegrees = meters / earthRadius * 180 / .pi
        let cosine = max(0.01, cos(point.latitude * .pi / 180))
        let longitudeDegrees = min(180, latitudeDegrees / cosine)
        return (
            max(-90, point.latitude - latitudeDegrees)...min(90, point.latitude + latitudeDegrees),
            max(-180, point.longitude - longitudeDegrees)...min(180, point.longitude + longitudeDegrees)
        )
    }
}

extension Geofence {
    /// How far `point` is from this geofence's edge, in meters: 0 or less inside.
    package func edgeDistance(from point: Point) -> Double {
        if let polygon, Geometry.contains(polygon, point) { return 0 }
        return Geometry.distance(center, point) - radiusMeters
    }
}
