// swift-tools-version:6.0
import PackageDescription

/// Herald: one server binary (`herald`) and the libraries it is layered from.
/// Dependencies point down the layers docs/architecture.md describes; only the shim targets touch C.
let package = Package(
    name: "Herald",
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        .executable(name: "herald", targets: ["herald"]),
        .library(name: "HeraldModel", targets: ["HeraldModel"]),
        .library(name: "HeraldServer", targets: ["HeraldServer"]),
        .library(name: "HeraldTesting", targets: ["HeraldTesting"]),
        // Static, so `swift build --product HeraldSDK` builds it alone. The app links HeraldSDK; its notification
        // service extension links HeraldNotificationService, which holds only extension-safe code.
        .library(name: "HeraldSDK", type: .static, targets: ["HeraldSDK"]),
        .library(name: "HeraldNotificationService", type: .static, targets: ["HeraldNotificationService"]),
    ],
    targets: [
        // C libraries from Debian, each wrapped once.
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CNghttp2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // The herald binary's malloc (see Sources/herald/main.swift).
        .systemLibrary(name: "CJemalloc", pkgConfig: "jemalloc", providers: [.apt(["libjemalloc-dev"])]),

        // Value types shared by server and SDK: Foundation only, no I/O.
        .target(name: "HeraldModel"),
        // Logging and metrics, for every layer below the server.
        .target(name: "HeraldObservability"),
        // Long-lived work as services under one supervisor.
        .target(name: "HeraldLifecycle", dependencies: ["HeraldModel", "HeraldObservability"]),
        .target(name: "HeraldCrypto", dependencies: ["COpenSSL"]),
        .target(
            name: "HeraldHTTP",
            dependencies: [
                "HeraldModel", "HeraldObservability", "HeraldLifecycle", "CMicroHTTPD", "CNghttp2", "COpenSSL",
            ]),
        // The delivery queue's contract: what the engine claims and answers, which the store implements.
        .target(name: "HeraldQueue", dependencies: ["HeraldModel"]),
        .target(name: "HeraldStore", dependencies: ["HeraldModel", "HeraldQueue", "HeraldObservability"]),
        .target(name: "HeraldSQLite", dependencies: ["HeraldStore", "CSQLite"]),
        .target(name: "HeraldPostgres", dependencies: ["HeraldStore", "HeraldLifecycle", "CLibPQ"]),
        // The rules: loyalty, inbox, accounts, the one drafting path; over the store's transactions.
        .target(
            name: "HeraldDomain",
            dependencies: ["HeraldModel", "HeraldStore", "HeraldObservability", "HeraldLifecycle"]),
        .target(name: "HeraldDelivery", dependencies: ["HeraldModel", "HeraldQueue", "HeraldHTTP", "HeraldLifecycle"]),
        .target(name: "HeraldAPNs", dependencies: ["HeraldDelivery", "HeraldCrypto"]),
        .target(name: "HeraldFCM", dependencies: ["HeraldDelivery", "HeraldCrypto"]),
        .target(
            name: "HeraldServer",
            dependencies: [
                "HeraldModel", "HeraldCrypto", "HeraldHTTP", "HeraldStore", "HeraldQueue", "HeraldDomain",
                "HeraldDelivery", "HeraldLifecycle",
            ]
        ),
        // The composition root: the command line, the backends and providers chosen, services run under signals.
        .target(
            name: "HeraldRuntime",
            dependencies: [
                "HeraldServer", "HeraldDomain", "HeraldSQLite", "HeraldPostgres", "HeraldAPNs", "HeraldFCM",
                "HeraldDelivery",
                "HeraldLifecycle", "HeraldCrypto", "HeraldHTTP", "HeraldObservability", "HeraldModel",
            ]
        ),
        .executableTarget(name: "herald", dependencies: ["HeraldRuntime", "CJemalloc"]),
        // The client library apps embed: Foundation (and FoundationNetworking) only, HMAC in Swift, no C. What a push's
        // content needs (its media, its action button) is extension-safe and shared with the service extension's
        // product; scripts/check-ios-sdk checks what no Linux build can (iOS 16, extension-safe API).
        .target(name: "HeraldPushContent", dependencies: ["HeraldModel"]),
        .target(name: "HeraldNotificationService", dependencies: ["HeraldPushContent", "HeraldModel"]),
        .target(name: "HeraldSDK", dependencies: ["HeraldModel", "HeraldPushContent", "HeraldNotificationService"]),
        // HTTP2Client alone against a server, for bench/client/run (which runs h2load beside it).
        .executableTarget(
            name: "http2-client-bench", dependencies: ["HeraldHTTP"], path: "bench/client/HTTP2ClientBench"),
        .target(
            name: "HeraldTesting",
            dependencies: [
                "HeraldRuntime", "HeraldServer", "HeraldDomain", "HeraldDelivery", "HeraldCrypto", "HeraldStore",
                "HeraldQueue", "HeraldHTTP",
                "HeraldSQLite", "HeraldPostgres", "HeraldModel", "HeraldObservability", "HeraldLifecycle",
            ]),

        // libFuzzer targets (scripts/fuzz builds them with -sanitize=fuzzer,address); built plainly, each replays
        // the inputs named on its command line.
        // docs/openapi.json's judge of answers (HeraldTesting's OpenAPIValidator) for the Python suites.
        .executableTarget(name: "openapi-check", dependencies: ["HeraldTesting"], path: "Tests/OpenAPICheck"),
        .target(name: "HeraldFuzzTargets", dependencies: ["HeraldModel"], path: "Tests/Fuzz/Targets"),
        .executableTarget(name: "FuzzJSON", dependencies: ["HeraldFuzzTargets"], path: "Tests/Fuzz/FuzzJSON"),
        .executableTarget(name: "FuzzNDJSON", dependencies: ["HeraldFuzzTargets"], path: "Tests/Fuzz/FuzzNDJSON"),
        .executableTarget(name: "FuzzSurvey", dependencies: ["HeraldFuzzTargets"], path: "Tests/Fuzz/FuzzSurvey"),
        .executableTarget(
            name: "FuzzPushPayload", dependencies: ["HeraldFuzzTargets"], path: "Tests/Fuzz/FuzzPushPayload"),
        .executableTarget(name: "FuzzTemplate", dependencies: ["HeraldFuzzTargets"], path: "Tests/Fuzz/FuzzTemplate"),
        .executableTarget(
            name: "FuzzQueryString", dependencies: ["HeraldFuzzTargets", "HeraldHTTP"],
            path: "Tests/Fuzz/FuzzQueryString"),
        .executableTarget(
            name: "FuzzHeaders", dependencies: ["HeraldFuzzTargets", "HeraldHTTP", "HeraldCrypto", "HeraldModel"],
            path: "Tests/Fuzz/FuzzHeaders"),
        .executableTarget(
            name: "FuzzHTTP2Response", dependencies: ["HeraldFuzzTargets", "HeraldHTTP"],
            path: "Tests/Fuzz/FuzzHTTP2Response"),

        .testTarget(name: "HeraldModelTests", dependencies: ["HeraldModel", "HeraldTesting", "HeraldCrypto"]),
        .testTarget(name: "HeraldObservabilityTests", dependencies: ["HeraldObservability"]),
        // openssl's command line checks HeraldCrypto; HeraldTesting says so when it is missing (TestTool).
        .testTarget(name: "HeraldCryptoTests", dependencies: ["HeraldCrypto", "HeraldTesting"]),
        .testTarget(
            name: "HeraldHTTPTests",
            dependencies: ["HeraldHTTP", "HeraldTesting", "HeraldCrypto", "HeraldModel", "HeraldFuzzTargets"]),
        .testTarget(
            name: "HeraldStoreTests",
            dependencies: ["HeraldStore", "HeraldQueue", "HeraldSQLite", "HeraldPostgres", "HeraldTesting"]),
        .testTarget(
            name: "HeraldPostgresTests",
            dependencies: [
                "HeraldPostgres", "HeraldStore", "HeraldQueue", "HeraldSQLite", "HeraldTesting", "HeraldLifecycle",
            ]),
        .testTarget(
            name: "HeraldDomainTests",
            dependencies: ["HeraldDomain", "HeraldStore", "HeraldQueue", "HeraldTesting", "HeraldLifecycle"]),
        .testTarget(name: "HeraldLifecycleTests", dependencies: ["HeraldLifecycle", "HeraldTesting"]),
        .testTarget(
            name: "HeraldDeliveryTests",
            dependencies: [
                "HeraldDelivery", "HeraldQueue", "HeraldAPNs", "HeraldFCM", "HeraldDomain", "HeraldTesting",
                "HeraldLifecycle",
            ]),
        .testTarget(
            name: "HeraldServerTests",
            dependencies: [
                "HeraldServer", "HeraldDelivery", "HeraldQueue", "HeraldTesting", "HeraldCrypto", "HeraldModel",
                "HeraldFuzzTargets",
            ]),
        .testTarget(
            name: "HeraldSDKTests",
            dependencies: [
                "HeraldSDK", "HeraldPushContent", "HeraldNotificationService", "HeraldModel", "HeraldHTTP",
                "HeraldCrypto",
                "HeraldObservability",
                // The end-to-end tests run the SDK against a whole Herald in the process.
                "HeraldTesting", "HeraldDomain", "HeraldStore",
            ]),
    ]
)
