import HeraldDomain

extension MediaController {
    /// The media routes as `HeraldApplication` wires them: files in `<data-dir>/media`, the admin token's guard,
    /// links under `configuration.publicURL` (else `http://<host>:<port>`, the port `boundPort` says once the
    /// server listens: `--port 0` picks one).
    ///
    /// ```swift
    /// try MediaController(
    ///     configuration: configuration, directory: directory, businesses: businesses, adminToken: adminToken,
    ///     boundPort: { server.port }
    /// ).register(in: &router)
    /// serverConfiguration.bodyLimit = MediaController.bodyLimit(adminToken: adminToken)
    /// ```
    init(
        configuration: HeraldConfiguration, directory: DataDirectory, businesses: BusinessService, adminToken: String,
        boundPort: @escaping @Sendable () -> Int
    ) throws {
        self.init(
            library: try MediaLibrary(directory: directory.file("media")), businesses: businesses,
            auth: AdminAuthenticator(token: adminToken),
            publicBaseURL: { Self.publicBaseURL(configuration, port: boundPort()) })
    }

    /// `publicURL` without its trailing slashes, else `http://<host>:<port>` (IPv6 hosts bracketed).
    static func publicBaseURL(_ configuration: HeraldConfiguration, port: Int) -> String {
        if var url = configuration.publicURL, !url.isEmpty {
            while url.hasSuffix("/") { url.removeLast() }
            return url
        }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "http://\(host):\(port)"
    }
}
