/// A setting given under an old name that `herald serve` still accepts, and what became of it — what the start-up
/// warning says (`HeraldConfiguration.deprecatedSettings`).
///
/// ```swift
/// for old in configuration.deprecatedSettings {
///     logger.warning("deprecated setting", ["setting": old.name, "replacement": old.replacement, "effect": old.effect])
/// }
/// ```
package struct DeprecatedSetting: Sendable, Equatable {
    /// The old flag and variable.
    package var name: String
    /// What to set instead.
    package var replacement: String
    /// What Herald did with the value given.
    package var effect: String
}
