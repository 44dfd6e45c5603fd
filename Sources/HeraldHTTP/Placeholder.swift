/// Placeholder until the HeraldHTTP target has its first type.
enum HeraldHTTPPlaceholder {}
