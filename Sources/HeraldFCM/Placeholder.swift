/// Placeholder until the HeraldFCM target has its first type.
enum HeraldFCMPlaceholder {}
