import HeraldModel

/// A location the operating system reported: where, how sure, and when.
public struct LocationFix: Sendable, Hashable {
    /// Where.
    public var coordinate: Coordinate
    /// The radius of uncertainty in metres (CoreLocation's `horizontalAccuracy`); negative means invalid.
    public var accuracyMeters: Double
    /// When it was measured.
    public var timestamp: Timestamp

    /// A fix.
    public init(coordinate: Coordinate, accuracyMeters: Double, timestamp: Timestamp) {
        self.coordinate = coordinate
        self.accuracyMeters = accuracyMeters
        self.timestamp = timestamp
    }

    /// True when the coordinate is valid and the accuracy a finite number ≥ 0.
    public var isValid: Bool { coordinate.isValid && accuracyMeters.isFinite && accuracyMeters >= 0 }
}
