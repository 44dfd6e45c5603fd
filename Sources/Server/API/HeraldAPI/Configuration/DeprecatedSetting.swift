/// A setting given under an old name that `herald serve` still accepts, and what became of it — what the start-up
/// warning says (`HeraldConfiguration.deprecatedSettings`).
///
/// ```swift
/// for old in configuration.deprecatedSettings {
///     logger.warning("deprecated setting", ["setting": old.name, "replacement": old.replacement, "effect": old.effect])
/// }
/// ```
public struct DeprecatedSetting: Sendable, Equatable {
    /// The old flag and variable.
    public var name: String
    /// What to set instead.
    public var replacement: String
    /// What Herald did with the value given.
    public var effect: String
}
