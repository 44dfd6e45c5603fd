// An app imports HeraldSDK alone: HeraldModel's types (`HeraldMessage`, `JSON`), the push-content helpers and the
// service extension's class (for extensions set up before HeraldNotificationService was a product of its own) come
// with it.
@_exported import HeraldModel
@_exported import HeraldNotificationService
@_exported import HeraldPushContent
