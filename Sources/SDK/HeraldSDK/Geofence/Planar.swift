import Foundation

/// Geometry on a local flat projection (equirectangular around the point asked about): accurate to well under a
/// metre for geofences of a few kilometres, which is all the SDK measures.
enum Planar {
    /// `coordinate` in metres east and north of `origin`.
    static func project(_ coordinate: Coordinate, around origin: Coordinate) -> (x: Double, y: Double) {
        let scale = cos(origin.latitude * .pi / 180)
        var dLon = coordinate.longitude - origin.longitude
        if dLon > 180 { dLon -= 360 }
        if dLon < -180 { dLon += 360 }
        let metresPerDegree = Coordinate.earthRadius * .pi / 180
        return (dLon * metresPerDegree * scale, (coordinate.latitude - origin.latitude) * metresPerDegree)
    }

    /// True when `point` is inside the polygon (even-odd rule).
    static func contains(_ point: Coordinate, _ vertices: [Coordinate]) -> Bool {
        let projected = vertices.map { project($0, around: point) }
        var inside = false
        var j = projected.count - 1
        for i in projected.indices {
            let (xi, yi) = projected[i]
            let (xj, yj) = projected[j]
            if (yi > 0) != (yj > 0) {
                let crossing = xi + (0 - yi) * (xj - xi) / (yj - yi)
                if crossing > 0 { inside.toggle() }
            }
            j = i
        }
        return inside
    }

    /// The distance in metres from `point` to the nearest edge of the polygon.
    static func distanceToOutline(_ point: Coordinate, _ vertices: [Coordinate]) -> Double {
        let projected = vertices.map { project($0, around: point) }
        var best = Double.infinity
        for index in projected.indices {
            let a = projected[index]
            let b = projected[(index + 1) % projected.count]
            best = min(best, distanceFromOrigin(toSegment: a, b))
        }
        return best
    }

    /// The distance from (0, 0) to the segment a–b.
    private static func distanceFromOrigin(toSegment a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        let dx = b.x - a.x
        let dy = b.y - a.y
        let lengthSquared = dx * dx + dy * dy
        let t = lengthSquared == 0 ? 0 : max(0, min(1, -(a.x * dx + a.y * dy) / lengthSquared))
        let x = a.x + t * dx
        let y = a.y + t * dy
        return (x * x + y * y).squareRoot()
    }
}
