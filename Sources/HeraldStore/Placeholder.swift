/// Placeholder until the HeraldStore target has its first type.
enum HeraldStorePlaceholder {}
