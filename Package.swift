// swift-tools-version:6.0
import PackageDescription

/// Herald: one server binary (`herald`) and the libraries it is layered from.
/// Dependencies point down ARCHITECTURE.md's table; only the shim targets touch C.
let package = Package(
    name: "Herald",
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        .executable(name: "herald", targets: ["herald"]),
        .library(name: "HeraldModel", targets: ["HeraldModel"]),
        .library(name: "HeraldServer", targets: ["HeraldServer"]),
        .library(name: "HeraldTesting", targets: ["HeraldTesting"]),
        // Static, so `swift build --product HeraldSDK` builds it alone; apps and their extensions each link a copy.
        .library(name: "HeraldSDK", type: .static, targets: ["HeraldSDK"]),
    ],
    targets: [
        // C libraries from Debian, each wrapped once.
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),

        // Value types shared by server and SDK: Foundation only, no I/O.
        .target(name: "HeraldModel"),
        // Logging and metrics, for every layer below the server.
        .target(name: "HeraldObservability"),
        .target(name: "HeraldCrypto", dependencies: ["COpenSSL"]),
        .target(name: "HeraldHTTP", dependencies: ["HeraldModel", "HeraldObservability", "CMicroHTTPD", "CCurl"]),
        .target(name: "HeraldStore", dependencies: ["HeraldModel", "HeraldObservability"]),
        .target(name: "HeraldSQLite", dependencies: ["HeraldStore", "CSQLite"]),
        .target(name: "HeraldDelivery", dependencies: ["HeraldModel", "HeraldStore", "HeraldHTTP"]),
        .target(name: "HeraldAPNs", dependencies: ["HeraldDelivery", "HeraldCrypto"]),
        .target(name: "HeraldFCM", dependencies: ["HeraldDelivery", "HeraldCrypto"]),
        .target(
            name: "HeraldServer",
            dependencies: [
                "HeraldModel", "HeraldCrypto", "HeraldHTTP", "HeraldStore", "HeraldSQLite",
                "HeraldDelivery", "HeraldAPNs", "HeraldFCM",
            ]
        ),
        .executableTarget(name: "herald", dependencies: ["HeraldServer", "HeraldHTTP", "HeraldObservability"]),
        // The client library apps embed: Foundation (and FoundationNetworking) only, HMAC in Swift, no C.
        .target(name: "HeraldSDK", dependencies: ["HeraldModel"]),
        .target(
            name: "HeraldTesting",
            dependencies: ["HeraldServer", "HeraldCrypto", "HeraldStore", "HeraldModel", "HeraldObservability"]),

        .testTarget(name: "HeraldModelTests", dependencies: ["HeraldModel", "HeraldTesting"]),
        .testTarget(name: "HeraldObservabilityTests", dependencies: ["HeraldObservability"]),
        .testTarget(name: "HeraldCryptoTests", dependencies: ["HeraldCrypto"]),
        .testTarget(name: "HeraldHTTPTests", dependencies: ["HeraldHTTP", "HeraldTesting"]),
        .testTarget(name: "HeraldStoreTests", dependencies: ["HeraldStore", "HeraldSQLite", "HeraldTesting"]),
        .testTarget(
            name: "HeraldDeliveryTests", dependencies: ["HeraldDelivery", "HeraldAPNs", "HeraldFCM", "HeraldTesting"]),
        .testTarget(name: "HeraldServerTests", dependencies: ["HeraldServer", "HeraldTesting"]),
        .testTarget(
            name: "HeraldSDKTests",
            dependencies: ["HeraldSDK", "HeraldModel", "HeraldHTTP", "HeraldCrypto", "HeraldObservability"]),
    ]
)
