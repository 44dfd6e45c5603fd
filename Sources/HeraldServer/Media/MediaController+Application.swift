import HeraldStore

extension MediaController {
    /// The media routes as `HeraldApplication` wires them: files in `<data-dir>/media`, the admin token's guard,
    /// links under `configuration.publicURL` (else `http://<host>:<port>` as configured).
    ///
    /// ```swift
    /// try MediaController(configuration: configuration, directory: directory, store: store, adminToken: adminToken)
    ///     .register(in: &router)
    /// serverConfiguration.bodyLimit = MediaController.bodyLimit(adminToken: adminToken)
    /// ```
    init(configuration: HeraldConfiguration, directory: DataDirectory, store: any Store, adminToken: String) throws {
        let base = Self.publicBaseURL(configuration)
        self.init(
            library: try MediaLibrary(directory: directory.file("media")), store: store,
            auth: AdminAuthenticator(token: adminToken), publicBaseURL: { base })
    }

    /// `publicURL` without its trailing slashes, else `http://<host>:<port>` (IPv6 hosts bracketed).
    static func publicBaseURL(_ configuration: HeraldConfiguration) -> String {
        if var url = configuration.publicURL, !url.isEmpty {
            while url.hasSuffix("/") { url.removeLast() }
            return url
        }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "http://\(host):\(configuration.port)"
    }
}
