#if canImport(Security) && os(iOS)
    import Foundation
    import Security

    /// Storage in the Keychain: one generic-password item per key, readable after the device's first unlock and
    /// never leaving it (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`: not in backups restored elsewhere, so
    /// another phone never signs as this install). The live environment keeps the install's record and credential
    /// here; the rest stays in files.
    ///
    /// Before the first unlock the Keychain answers `errSecInteractionNotAllowed`: reads throw `unavailable`, never
    /// "nothing stored", so the SDK waits instead of starting a new install. Keychain items outlive the app: reinstalled,
    /// it is the same install.
    ///
    /// ```swift
    /// let keychain = KeychainStorage()
    /// try keychain.write("install", bytes)
    /// ```
    public final class KeychainStorage: PersistentStorage, @unchecked Sendable {
        /// The items' `kSecAttrService`.
        public let service: String
        private let accessGroup: String?
        private let availability: @Sendable () -> Bool
        private let lock = NSLock()

        /// Items under `service` (in `accessGroup`, when the app shares them); `availability` says whether protected
        /// data can be read now (always, by default: the Keychain itself says when it can't).
        public init(
            service: String = "dev.herald.sdk", accessGroup: String? = nil,
            availability: @escaping @Sendable () -> Bool = { true }
        ) {
            self.service = service
            self.accessGroup = accessGroup
            self.availability = availability
        }

        /// Whether protected data can be read now.
        public func isAvailable() -> Bool { availability() }

        private func query(_ key: String) -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: key,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }

        /// The item's bytes; nil when there is none. Any other answer than the item or "not found" throws
        /// `unavailable`.
        public func read(_ key: String) throws(StorageError) -> [UInt8]? {
            var search = query(key)
            search[kSecReturnData as String] = true
            search[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            lock.lock()
            let status = SecItemCopyMatching(search as CFDictionary, &result)
            lock.unlock()
            switch status {
            case errSecSuccess:
                guard let data = result as? Data else {
                    throw StorageError(code: .unavailable, detail: "\(key): the Keychain answered no data")
                }
                return [UInt8](data)
            case errSecItemNotFound:
                return nil
            default:
                throw StorageError(code: .unavailable, detail: "\(key): Keychain status \(status)")
            }
        }

        /// Replaces the item's bytes (an update, or an add when there is none): atomic, as the Keychain is.
        public func write(_ key: String, _ bytes: [UInt8]) throws(StorageError) {
            let data = Data(bytes)
            let attributes: [String: Any] = [
                kSecValueData as String: data,
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            ]
            lock.lock()
            var status = SecItemUpdate(query(key) as CFDictionary, attributes as CFDictionary)
            if status == errSecItemNotFound {
                let item = query(key).merging(attributes) { _, new in new }
                status = SecItemAdd(item as CFDictionary, nil)
            }
            lock.unlock()
            guard status == errSecSuccess else {
                throw StorageError(
                    code: status == errSecInteractionNotAllowed ? .unavailable : .failed,
                    detail: "\(key): Keychain status \(status)")
            }
        }

        /// Deletes the item (nothing happens when there is none).
        public func remove(_ key: String) throws(StorageError) {
            lock.lock()
            let status = SecItemDelete(query(key) as CFDictionary)
            lock.unlock()
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw StorageError(
                    code: status == errSecInteractionNotAllowed ? .unavailable : .failed,
                    detail: "\(key): Keychain status \(status)")
            }
        }
    }
#endif
