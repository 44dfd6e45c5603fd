// swift-tools-version:6.0
import PackageDescription

/// Herald: one server binary (`herald`), the SDK apps embed, and what both share. `Sources/` is grouped by who runs the
/// code — `Shared/` (the server and the SDK), `Server/` (by role: System, Platform, Storage, Domain, Delivery, API, App,
/// Testing) and `SDK/` — and dependencies point down the layers docs/architecture.md draws from this file
/// (`scripts/check-imports` keeps the two, and every target's imports, in step).
let package = Package(
    name: "Herald",
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        .executable(name: "herald", targets: ["herald"]),
        .library(name: "HeraldModel", targets: ["HeraldModel"]),
        // The server as a library: its application, composition root and command line.
        .library(name: "HeraldServer", targets: ["HeraldServer"]),
        .library(name: "HeraldTesting", targets: ["HeraldTesting"]),
        // Static, so `swift build --product HeraldSDK` builds it alone. The app links HeraldSDK; its notification
        // service extension links HeraldServiceExtension, which holds only extension-safe code.
        .library(name: "HeraldSDK", type: .static, targets: ["HeraldSDK"]),
        .library(name: "HeraldServiceExtension", type: .static, targets: ["HeraldServiceExtension"]),
        // The service extension's library under its earlier name (deprecated; see its Deprecations.swift).
        .library(name: "HeraldNotificationService", type: .static, targets: ["HeraldNotificationService"]),
    ],
    targets: [
        // MARK: Shared by the server and the SDK

        // Value types: JSON, timestamps, push payloads, messages, surveys and their validator. Foundation only, no I/O.
        .target(name: "HeraldModel", path: "Sources/Shared/HeraldModel"),

        // MARK: Server — System: C libraries from Debian, each wrapped once

        .systemLibrary(
            name: "CMicroHTTPD", path: "Sources/Server/System/CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(
            name: "CNghttp2", path: "Sources/Server/System/CNghttp2", pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(
            name: "COpenSSL", path: "Sources/Server/System/COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CSQLite", path: "Sources/Server/System/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CLibPQ", path: "Sources/Server/System/CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // The herald binary's malloc (see its main.swift).
        .systemLibrary(
            name: "CJemalloc", path: "Sources/Server/System/CJemalloc", pkgConfig: "jemalloc",
            providers: [.apt(["libjemalloc-dev"])]),

        // MARK: Server — Platform: what every layer above runs on

        // Logging and metrics.
        .target(name: "HeraldObservability", path: "Sources/Server/Platform/HeraldObservability"),
        // Long-lived work as workers under one supervisor.
        .target(
            name: "HeraldLifecycle", dependencies: ["HeraldModel", "HeraldObservability"],
            path: "Sources/Server/Platform/HeraldLifecycle"),
        .target(name: "HeraldCrypto", dependencies: ["COpenSSL"], path: "Sources/Server/Platform/HeraldCrypto"),
        // The HTTP/1.1 server the API runs on (libmicrohttpd).
        .target(
            name: "HeraldHTTPServer",
            dependencies: ["HeraldModel", "HeraldObservability", "HeraldLifecycle", "CMicroHTTPD"],
            path: "Sources/Server/Platform/HeraldHTTPServer"),
        // The HTTP/2 client the providers send with (libnghttp2 over OpenSSL).
        .target(
            name: "HeraldHTTPClient", dependencies: ["HeraldModel", "CNghttp2", "COpenSSL"],
            path: "Sources/Server/Platform/HeraldHTTPClient"),

        // MARK: Server — Storage: data access over SQLite or PostgreSQL

        // The values the store keeps (businesses, users, devices, inbox entries, campaigns, …) and the error it
        // throws: what the HTTP layer names without the store. HeraldModel only.
        .target(name: "HeraldEntities", dependencies: ["HeraldModel"], path: "Sources/Server/Storage/HeraldEntities"),
        .target(
            name: "HeraldStore", dependencies: ["HeraldModel", "HeraldEntities", "HeraldDeliveryPorts"],
            path: "Sources/Server/Storage/HeraldStore"),
        .target(
            name: "HeraldSQLite", dependencies: ["HeraldStore", "CSQLite"], path: "Sources/Server/Storage/HeraldSQLite"),
        .target(
            name: "HeraldPostgres", dependencies: ["HeraldStore", "HeraldLifecycle", "CLibPQ"],
            path: "Sources/Server/Storage/HeraldPostgres"),

        // MARK: Server — Domain: the rules, over the store's transactions

        .target(
            name: "HeraldDomain",
            dependencies: ["HeraldModel", "HeraldStore", "HeraldCrypto", "HeraldObservability", "HeraldLifecycle"],
            path: "Sources/Server/Domain/HeraldDomain"),

        // MARK: Server — Delivery: the engine, its ports and Apple's and Google's providers

        // What the engine reads and writes through (the queue, connection leases, provider tokens, FCM's quota),
        // implemented by the store: HeraldModel only.
        .target(
            name: "HeraldDeliveryPorts", dependencies: ["HeraldModel"],
            path: "Sources/Server/Delivery/HeraldDeliveryPorts"),
        .target(
            name: "HeraldDelivery",
            dependencies: [
                "HeraldModel", "HeraldDeliveryPorts", "HeraldHTTPClient", "HeraldLifecycle", "HeraldObservability",
            ],
            path: "Sources/Server/Delivery/HeraldDelivery"),
        .target(
            name: "HeraldAPNs",
            dependencies: [
                "HeraldDelivery", "HeraldDeliveryPorts", "HeraldCrypto", "HeraldHTTPClient", "HeraldModel",
                "HeraldObservability",
            ],
            path: "Sources/Server/Delivery/HeraldAPNs"),
        .target(
            name: "HeraldFCM",
            dependencies: [
                "HeraldDelivery", "HeraldDeliveryPorts", "HeraldCrypto", "HeraldHTTPClient", "HeraldModel",
                "HeraldObservability",
            ],
            path: "Sources/Server/Delivery/HeraldFCM"),

        // MARK: Server — API: the HTTP layer (controllers, auth, presenters, the console)

        .target(
            name: "HeraldAPI",
            dependencies: [
                "HeraldModel", "HeraldCrypto", "HeraldHTTPServer", "HeraldEntities", "HeraldDomain", "HeraldDelivery",
                "HeraldLifecycle", "HeraldObservability",
            ],
            path: "Sources/Server/API/HeraldAPI"),

        // MARK: Server — App: the composition root and the command line

        .target(
            name: "HeraldServer",
            dependencies: [
                "HeraldAPI", "HeraldDomain", "HeraldStore", "HeraldDeliveryPorts", "HeraldSQLite", "HeraldPostgres",
                "HeraldAPNs", "HeraldFCM",
                "HeraldDelivery", "HeraldLifecycle", "HeraldCrypto", "HeraldHTTPServer", "HeraldHTTPClient",
                "HeraldObservability", "HeraldModel",
            ],
            path: "Sources/Server/App/HeraldServer"),
        .executableTarget(
            name: "herald", dependencies: ["HeraldServer", "CJemalloc"], path: "Sources/Server/App/herald"),

        // MARK: Server — Testing: an in-process Herald and fakes, shipped as a library

        .target(
            name: "HeraldTesting",
            dependencies: [
                "HeraldServer", "HeraldAPI", "HeraldDomain", "HeraldDelivery", "HeraldCrypto", "HeraldStore",
                "HeraldDeliveryPorts", "HeraldSQLite", "HeraldPostgres", "HeraldModel", "HeraldObservability",
                "HeraldLifecycle", "HeraldHTTPServer",
            ],
            path: "Sources/Server/Testing/HeraldTesting"),

        // MARK: SDK: the client library apps embed — Foundation only, HMAC in Swift, no C

        // What a push's content needs (its media, its action button): extension-safe, shared with the service extension.
        .target(name: "HeraldPushContent", dependencies: ["HeraldModel"], path: "Sources/SDK/HeraldPushContent"),
        .target(
            name: "HeraldServiceExtension", dependencies: ["HeraldPushContent", "HeraldModel"],
            path: "Sources/SDK/HeraldServiceExtension"),
        .target(
            name: "HeraldNotificationService", dependencies: ["HeraldServiceExtension"],
            path: "Sources/SDK/HeraldNotificationService"),
        .target(
            name: "HeraldSDK", dependencies: ["HeraldModel", "HeraldPushContent", "HeraldServiceExtension"],
            path: "Sources/SDK/HeraldSDK"),

        // MARK: Tools and tests

        // HTTP2Client alone against a server, for bench/client/run (which runs h2load beside it).
        .executableTarget(
            name: "http2-client-bench", dependencies: ["HeraldHTTPClient"], path: "bench/client/HTTP2ClientBench"),
        // docs/openapi.json's judge of answers (HeraldTesting's OpenAPIValidator) for the Python suites.
        .executableTarget(
            name: "openapi-check", dependencies: ["HeraldTesting", "HeraldModel"], path: "Tests/OpenAPICheck"),
        // libFuzzer targets (scripts/fuzz builds them with -sanitize=fuzzer,address); built plainly, each replays
        // the inputs named on its command line.
        .target(name: "HeraldFuzzTargets", dependencies: ["HeraldModel"], path: "Tests/Fuzz/Targets"),
        .executableTarget(name: "FuzzJSON", dependencies: ["HeraldFuzzTargets"], path: "Tests/Fuzz/FuzzJSON"),
        .executableTarget(name: "FuzzNDJSON", dependencies: ["HeraldFuzzTargets"], path: "Tests/Fuzz/FuzzNDJSON"),
        .executableTarget(name: "FuzzSurvey", dependencies: ["HeraldFuzzTargets"], path: "Tests/Fuzz/FuzzSurvey"),
        .executableTarget(
            name: "FuzzPushPayload", dependencies: ["HeraldFuzzTargets"], path: "Tests/Fuzz/FuzzPushPayload"),
        .executableTarget(name: "FuzzTemplate", dependencies: ["HeraldFuzzTargets"], path: "Tests/Fuzz/FuzzTemplate"),
        .executableTarget(
            name: "FuzzQueryString", dependencies: ["HeraldFuzzTargets", "HeraldHTTPServer", "HeraldModel"],
            path: "Tests/Fuzz/FuzzQueryString"),
        .executableTarget(
            name: "FuzzHeaders",
            dependencies: ["HeraldFuzzTargets", "HeraldHTTPServer", "HeraldCrypto", "HeraldModel"],
            path: "Tests/Fuzz/FuzzHeaders"),
        .executableTarget(
            name: "FuzzHTTP2Response", dependencies: ["HeraldFuzzTargets", "HeraldHTTPClient"],
            path: "Tests/Fuzz/FuzzHTTP2Response"),

        .testTarget(name: "HeraldModelTests", dependencies: ["HeraldModel", "HeraldTesting", "HeraldCrypto"]),
        .testTarget(name: "HeraldObservabilityTests", dependencies: ["HeraldObservability"]),
        // openssl's command line checks HeraldCrypto; HeraldTesting says so when it is missing (TestTool).
        .testTarget(name: "HeraldCryptoTests", dependencies: ["HeraldCrypto", "HeraldTesting"]),
        .testTarget(
            name: "HeraldHTTPServerTests",
            dependencies: ["HeraldHTTPServer", "HeraldTesting", "HeraldModel", "HeraldObservability"]),
        .testTarget(
            name: "HeraldHTTPClientTests",
            dependencies: [
                "HeraldHTTPClient", "HeraldTesting", "HeraldModel", "HeraldCrypto", "HeraldFuzzTargets", "CNghttp2",
            ]),
        .testTarget(
            name: "HeraldStoreTests",
            dependencies: [
                "HeraldStore", "HeraldDeliveryPorts", "HeraldSQLite", "HeraldPostgres", "HeraldTesting", "HeraldModel",
                "HeraldDomain",
            ]),
        .testTarget(
            name: "HeraldPostgresTests",
            dependencies: [
                "HeraldPostgres", "HeraldStore", "HeraldDeliveryPorts", "HeraldTesting", "HeraldLifecycle",
                "HeraldDomain",
            ]),
        .testTarget(
            name: "HeraldDomainTests",
            dependencies: [
                "HeraldDomain", "HeraldStore", "HeraldDeliveryPorts", "HeraldTesting", "HeraldLifecycle", "HeraldModel",
                "HeraldObservability", "HeraldSQLite",
            ]),
        .testTarget(name: "HeraldLifecycleTests", dependencies: ["HeraldLifecycle", "HeraldTesting"]),
        .testTarget(
            name: "HeraldDeliveryTests",
            dependencies: [
                "HeraldDelivery", "HeraldDeliveryPorts", "HeraldAPNs", "HeraldFCM", "HeraldDomain", "HeraldTesting",
                "HeraldLifecycle", "HeraldCrypto", "HeraldHTTPClient", "HeraldModel", "HeraldObservability",
                "HeraldServer", "HeraldSQLite", "HeraldAPI", "HeraldStore",
            ]),
        .testTarget(
            name: "HeraldAPITests",
            dependencies: [
                "HeraldAPI", "HeraldDelivery", "HeraldDeliveryPorts", "HeraldTesting", "HeraldCrypto", "HeraldModel",
                "HeraldFuzzTargets", "HeraldDomain", "HeraldHTTPServer", "HeraldObservability", "HeraldSQLite",
                "HeraldStore",
            ]),
        .testTarget(
            name: "HeraldSDKTests",
            dependencies: [
                "HeraldSDK", "HeraldPushContent", "HeraldModel", "HeraldHTTPServer",
                "HeraldCrypto", "HeraldObservability",
                // The end-to-end tests run the SDK against a whole Herald in the process.
                "HeraldTesting", "HeraldDomain", "HeraldStore",
            ]),
    ]
)
