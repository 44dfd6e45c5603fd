import HeraldModel

/// One user of a bulk import, checked by the API: who it is (its external id, else its email), what to set, and
/// the devices to attach to it.
package struct ImportedUser: Sendable, Equatable {
    /// The input line it came from (answers name it).
    package var line: Int
    /// The business's own id for the user: what it is matched by first.
    package var externalID: String?
    /// Email, lower-cased: what it is matched by without an external id (or when none has it yet).
    package var email: String?
    /// Given name; nil leaves it.
    package var firstName: String?
    /// Family name; nil leaves it.
    package var lastName: String?
    /// Attributes to set (strings, numbers, booleans), merged into the user's; a null value removes one.
    package var attributes: [(key: String, value: JSON)]
    /// Devices to attach to the user.
    package var devices: [ImportedDevice]

    /// A user to import.
    package init(
        line: Int, externalID: String?, email: String?, firstName: String? = nil, lastName: String? = nil,
        attributes: [(key: String, value: JSON)] = [], devices: [ImportedDevice] = []
    ) {
        self.line = line
        self.externalID = externalID
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.attributes = attributes
        self.devices = devices
    }

    package static func == (lhs: ImportedUser, rhs: ImportedUser) -> Bool {
        lhs.line == rhs.line && lhs.externalID == rhs.externalID && lhs.email == rhs.email
            && lhs.firstName == rhs.firstName && lhs.lastName == rhs.lastName
            && JSON.object(lhs.attributes) == JSON.object(rhs.attributes) && lhs.devices == rhs.devices
    }
}

/// A device of an imported user.
package struct ImportedDevice: Sendable, Equatable {
    /// The device's key: its `install_id` (the key an SDK install or a Punchh app's device id uses), else one
    /// derived from its token (`UserImporter.derivedKey`).
    package var key: String
    /// Whether `key` was given (an install id) rather than derived: a derived key first looks for the device
    /// already holding the token.
    package var keyGiven: Bool
    /// The push service its token is for.
    package var platform: PushPlatform
    /// Its push token.
    package var token: String

    /// A device to attach.
    package init(key: String, keyGiven: Bool, platform: PushPlatform, token: String) {
        self.key = key
        self.keyGiven = keyGiven
        self.platform = platform
        self.token = token
    }
}

/// What importing some users did.
package struct UserImportResult: Sendable, Equatable {
    /// Users created.
    package var created = 0
    /// Users found (by external id or email) and brought up to date, changed or not.
    package var updated = 0
    /// Lines refused, with why: `(line, [(field, messages)])`.
    package var rejected: [Rejection] = []

    /// A line refused.
    package struct Rejection: Sendable, Equatable {
        /// Its number.
        package var line: Int
        /// What was wrong, by field.
        package var errors: [Field]

        /// A field's messages.
        package struct Field: Sendable, Equatable {
            /// The field (`email`, `devices[0].push_token`, `base`).
            package var name: String
            /// What is wrong with it.
            package var messages: [String]

            /// A field's messages.
            package init(_ name: String, _ messages: [String]) {
                self.name = name
                self.messages = messages
            }
        }

        /// A refused line.
        package init(line: Int, errors: [Field]) {
            self.line = line
            self.errors = errors
        }
    }

    /// A result (nothing yet, by default).
    package init(created: Int = 0, updated: Int = 0, rejected: [Rejection] = []) {
        self.created = created
        self.updated = updated
        self.rejected = rejected
    }
}
