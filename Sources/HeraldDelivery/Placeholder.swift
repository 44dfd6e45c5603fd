/// Placeholder until the HeraldDelivery target has its first type.
enum HeraldDeliveryPlaceholder {}
