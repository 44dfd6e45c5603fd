/// What this binary is: its version and the compiler it was built with (`herald version`, `herald_build_info`).
package enum BuildInfo {
    /// Herald's version.
    package static let version = "0.1.0"

    /// The Swift compiler that built it.
    package static let swiftVersion: String = {
        #if compiler(>=6.3)
            return "6.3"
        #elseif compiler(>=6.2)
            return "6.2"
        #elseif compiler(>=6.1)
            return "6.1"
        #else
            return "6.0"
        #endif
    }()

    /// How it was built: `debug` or `release`.
    package static let configuration: String = {
        #if DEBUG
            return "debug"
        #else
            return "release"
        #endif
    }()

    /// The line `herald version` prints.
    package static var versionLine: String {
        "herald \(version) (swift \(swiftVersion), \(configuration) build)"
    }
}
