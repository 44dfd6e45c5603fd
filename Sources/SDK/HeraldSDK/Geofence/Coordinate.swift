import Foundation
import HeraldModel

/// A point on Earth in degrees (WGS 84), as the device API and CoreLocation write it.
public struct Coordinate: Sendable, Hashable {
    /// Degrees north, -90…90.
    public var latitude: Double
    /// Degrees east, -180…180.
    public var longitude: Double

    /// A point.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// True when both are finite and in range.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
    }

    /// The mean Earth radius, in metres.
    static let earthRadius = 6_371_008.8

    /// Great-circle distance to `other` in metres (haversine).
    public func distance(to other: Coordinate) -> Double {
        let lat1 = latitude * .pi / 180
        let lat2 = other.latitude * .pi / 180
        let dLat = lat2 - lat1
        let dLon = (other.longitude - longitude) * .pi / 180
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * Self.earthRadius * asin(min(1, sqrt(a)))
    }

    /// `{"latitude","longitude"}`.
    var json: JSON { .object([("latitude", .double(latitude)), ("longitude", .double(longitude))]) }

    /// Reads `{"latitude","longitude"}` of valid numbers.
    init?(json: JSON?) {
        guard let latitude = json?["latitude"]?.doubleValue, let longitude = json?["longitude"]?.doubleValue else {
            return nil
        }
        self.init(latitude: latitude, longitude: longitude)
        guard isValid else { return nil }
    }
}
