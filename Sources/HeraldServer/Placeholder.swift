/// Placeholder until the HeraldServer target has its first type.
enum HeraldServerPlaceholder {}
