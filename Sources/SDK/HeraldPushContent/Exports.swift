// What a push's content needs speaks HeraldModel's types (`JSON`, `HeraldMessage`): importing this module is enough.
@_exported import HeraldModel
