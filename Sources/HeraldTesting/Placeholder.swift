/// Placeholder until the HeraldTesting target has its first type.
enum HeraldTestingPlaceholder {}
