/// Placeholder until the HeraldCrypto target has its first type.
enum HeraldCryptoPlaceholder {}
