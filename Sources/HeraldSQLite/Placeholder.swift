/// Placeholder until the HeraldSQLite target has its first type.
enum HeraldSQLitePlaceholder {}
