// A notification service extension imports this module alone: the attacher, its options and HeraldModel's types come
// with it.
@_exported import HeraldPushContent
