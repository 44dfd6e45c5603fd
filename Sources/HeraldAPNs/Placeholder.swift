/// Placeholder until the HeraldAPNs target has its first type.
enum HeraldAPNsPlaceholder {}
