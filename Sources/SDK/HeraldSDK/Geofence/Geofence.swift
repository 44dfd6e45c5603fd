import HeraldModel

/// A geofence as `GET /api/v1/geofences` lists it:
/// `{"id","name","shape":"circle"|"polygon","center":{"latitude","longitude"},"radius_meters",
/// "polygon"?:[{"latitude","longitude"}…],"triggers":["enter"|"exit"…]}`.
public struct Geofence: Sendable, Equatable {
    /// Its id, echoed in `geofence-events`.
    public var id: String
    /// Its name.
    public var name: String
    /// Its outline.
    public var shape: Shape
    /// Which crossings the server wants to hear of.
    public var triggers: Set<GeofenceTransition.Kind>
    /// The location it belongs to, when the server says (`location_id`), for `notification.displayed`.
    public var locationID: JSON?

    /// A geofence.
    public init(
        id: String, name: String, shape: Shape, triggers: Set<GeofenceTransition.Kind> = [.enter],
        locationID: JSON? = nil
    ) {
        self.id = id
        self.name = name
        self.shape = shape
        self.triggers = triggers
        self.locationID = locationID
    }

    /// A geofence's outline.
    public enum Shape: Sendable, Hashable {
        /// A circle.
        case circle(center: Coordinate, radiusMeters: Double)
        /// A polygon: at least three vertices, in order, closed implicitly.
        case polygon([Coordinate])
    }

    /// Reads one listed geofence; nil when it is malformed (the SDK skips it).
    public init?(json: JSON) {
        guard let id = json["id"].flatMap({ WireID.text($0) }) else { return nil }
        let name = json["name"]?.stringValue ?? ""
        var triggers: Set<GeofenceTransition.Kind> = []
        for item in json["triggers"]?.arrayValue ?? [] {
            if let text = item.stringValue, let kind = GeofenceTransition.Kind(rawValue: text) { triggers.insert(kind) }
        }
        if json["triggers"] == nil { triggers = [.enter] }
        let locationID = json["location_id"].flatMap { $0.isNull ? nil : $0 }
        switch json["shape"]?.stringValue {
        case "circle":
            guard let center = Coordinate(json: json["center"]), let radius = json["radius_meters"]?.doubleValue,
                radius.isFinite, radius > 0
            else { return nil }
            self.init(
                id: id, name: name, shape: .circle(center: center, radiusMeters: radius), triggers: triggers,
                locationID: locationID)
        case "polygon":
            guard let items = json["polygon"]?.arrayValue, items.count >= 3 else { return nil }
            var vertices: [Coordinate] = []
            for item in items {
                guard let vertex = Coordinate(json: item) else { return nil }
                vertices.append(vertex)
            }
            self.init(id: id, name: name, shape: .polygon(vertices), triggers: triggers, locationID: locationID)
        default:
            return nil
        }
    }

    /// The signed distance in metres from `point` to the outline: negative inside (how far in), positive outside.
    public func signedDistance(from point: Coordinate) -> Double {
        switch shape {
        case .circle(let center, let radius):
            return point.distance(to: center) - radius
        case .polygon(let vertices):
            let edge = Planar.distanceToOutline(point, vertices)
            return Planar.contains(point, vertices) ? -edge : edge
        }
    }

    /// A circle containing the whole geofence, for the operating system to watch: the circle itself, or a
    /// polygon's centroid and its farthest vertex.
    public var boundingCircle: (center: Coordinate, radiusMeters: Double) {
        switch shape {
        case .circle(let center, let radius):
            return (center, radius)
        case .polygon(let vertices):
            let center = Coordinate(
                latitude: vertices.map(\.latitude).reduce(0, +) / Double(vertices.count),
                longitude: vertices.map(\.longitude).reduce(0, +) / Double(vertices.count))
            return (center, vertices.map { center.distance(to: $0) }.max() ?? 0)
        }
    }
}

/// Reading ids that may come as strings or whole numbers.
enum WireID {
    /// The id as text: a non-empty string, or a whole number ≥ 0 as its digits.
    static func text(_ value: JSON) -> String? {
        switch value {
        case .string(let text) where !text.isEmpty && text.utf8.count <= HeraldMessage.maximumIDLength: return text
        case .int(let number) where number >= 0: return String(number)
        default: return nil
        }
    }
}
