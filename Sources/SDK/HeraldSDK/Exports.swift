// An app imports HeraldSDK alone: HeraldModel's types (`HeraldMessage`, `JSON`), the push-content helpers and the
// service extension's class (for extensions set up before the service extension had a product of its own) come with
// it.
@_exported import HeraldModel
@_exported import HeraldServiceExtension
@_exported import HeraldPushContent
