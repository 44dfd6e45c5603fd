// The rows the store reads and writes are HeraldEntities' values: whoever uses the store names them.
@_exported import HeraldEntities
