extension Schema {
    /// A sandbox campaign reaches a business's approved test devices, at most 25 among possibly millions of devices:
    /// found through an index of its sandbox installs rather than a walk through all of them (measured on 1,000,000
    /// devices: 160 ms → under a millisecond).
    static let sandboxDevices = Migration(version: 8, name: "sandbox_devices") { _ in
        ["CREATE INDEX devices_sandbox ON devices (business_id, id) WHERE workspace = 'sandbox'"]
    }
}
