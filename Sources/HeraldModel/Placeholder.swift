/// Placeholder until the HeraldModel target has its first type.
enum HeraldModelPlaceholder {}
