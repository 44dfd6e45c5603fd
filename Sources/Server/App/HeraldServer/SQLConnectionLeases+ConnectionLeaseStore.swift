import HeraldDeliveryPorts
import HeraldDelivery
import HeraldStore

/// The database's connection leases, as the delivery engine's `ConnectionBudget` shares them between the nodes:
/// declared here, where the store and the engine meet (neither depends on the other).
extension SQLConnectionLeases: ConnectionLeaseStore {}
