// swift-tools-version:6.0
import PackageDescription

// Library targets build in Swift 5 language mode with complete strict-concurrency checking
// (docs/ARCHITECTURE.md, "Language mode and isolation"): operator closures stay plain, non-@Sendable
// closures as in Combine, and main-actor closures handed to them get the compiler's run-time
// isolation check instead of racing silently.
let librarySettings: [SwiftSetting] = [
    .swiftLanguageMode(.v5),
    .enableUpcomingFeature("StrictConcurrency"),
]

// Examples/ are user code: Swift 6 language mode (this tools version's default, spelled out so
// that it survives a change of tools version), not the library settings above.
let exampleSettings: [SwiftSetting] = [.swiftLanguageMode(.v6)]

// `import Combine` on platforms without Apple's Combine: the product `Combine` is a module of that
// name re-exporting Sluice. On Apple platforms the same product is an empty module under another
// name, so that a package depending on it everywhere still finds Apple's Combine there.
#if canImport(Darwin)
let combineModule = "SluiceCombineOnApple"
#else
let combineModule = "Combine"
#endif

let package = Package(
    name: "Sluice",
    products: [
        .library(name: "Sluice", targets: ["Sluice"]),
        .library(name: "SluiceSchedulers", targets: ["SluiceSchedulers"]),
        .library(name: "SluiceExtras", targets: ["SluiceExtras"]),
        .library(name: "SluiceTesting", targets: ["SluiceTesting"]),
        .library(name: "Combine", targets: [combineModule]),
        .library(name: "SluiceRx", targets: ["SluiceRx"]),
        .library(name: "SluiceRxBlocking", targets: ["SluiceRxBlocking"]),
        .library(name: "SluiceRxTest", targets: ["SluiceRxTest"]),
        .library(name: "SluiceShim", targets: ["SluiceShim"]),
        .executable(name: "sluice-tour", targets: ["sluice-tour"]),
        .executable(name: "sluice-bench", targets: ["sluice-bench"]),
    ],
    targets: [
        .target(name: "Sluice", swiftSettings: librarySettings),
        // Sluice is exactly Combine's API; SluiceSchedulers is combine-schedulers' API on it, and
        // SluiceExtras what Sluice adds beyond both. They share Sluice's engine through `package`
        // declarations, which are no part of Sluice's public API.
        .target(name: "SluiceSchedulers", dependencies: ["Sluice"], swiftSettings: librarySettings),
        .target(name: "SluiceExtras", dependencies: ["Sluice", "SluiceSchedulers"], swiftSettings: librarySettings),
        .target(name: combineModule, dependencies: [.target(name: "Sluice", condition: .when(platforms: [.linux, .windows, .android, .wasi, .openbsd]))], path: "Sources/Combine", swiftSettings: librarySettings),
        .target(name: "SluiceTesting", dependencies: ["Sluice", "SluiceSchedulers"], swiftSettings: librarySettings),
        // SluiceRx is RxSwift's spelling on Sluice; SluiceRxBlocking is RxBlocking's toBlocking and
        // SluiceRxTest RxTest's TestScheduler, both resting on SluiceTesting, as test-only modules.
        .target(name: "SluiceRx", dependencies: ["Sluice", "SluiceExtras", "SluiceSchedulers"], swiftSettings: librarySettings),
        .target(name: "SluiceRxBlocking", dependencies: ["Sluice", "SluiceExtras", "SluiceSchedulers", "SluiceTesting", "SluiceRx"], swiftSettings: librarySettings),
        .target(name: "SluiceRxTest", dependencies: ["Sluice", "SluiceExtras", "SluiceSchedulers", "SluiceTesting", "SluiceRx"], swiftSettings: librarySettings),
        .target(name: "SluiceShim", dependencies: ["Sluice"], swiftSettings: librarySettings),
        .executableTarget(name: "sluice-tour", dependencies: ["Sluice", "SluiceExtras", "SluiceSchedulers", "SluiceTesting", "SluiceRx", "SluiceRxBlocking"]),
        .target(name: "SluiceBenchSupport"),
        .executableTarget(name: "sluice-bench", dependencies: ["Sluice", "SluiceExtras", "SluiceSchedulers", "SluiceTesting", "SluiceBenchSupport", "SluiceRx"]),
        .testTarget(name: "SluiceTests", dependencies: ["Sluice", "SluiceExtras", "SluiceSchedulers", "SluiceTesting"]),
        // The seeds' code blocks as programs, each run by AcceptanceTests and checked for the
        // seed's assertions (Tests/AcceptanceTests/Seeds/*/main.swift).
        .executableTarget(name: "seed-000", dependencies: ["Sluice", "SluiceExtras", "SluiceSchedulers", "SluiceTesting"],
                          path: "Tests/AcceptanceTests/Seeds/Seed000"),
        .executableTarget(name: "seed-002", dependencies: ["SluiceRx"],
                          path: "Tests/AcceptanceTests/Seeds/Seed002"),
        .executableTarget(name: "seed-004", dependencies: ["SluiceRx", "SluiceRxBlocking"],
                          path: "Tests/AcceptanceTests/Seeds/Seed004"),
        // A program under dispatchMain(), where the main queue's thread is not the first thread.
        .executableTarget(name: "dispatch-main-probe", dependencies: ["Sluice", "SluiceExtras", "SluiceSchedulers", "SluiceRx"],
                          path: "Tests/AcceptanceTests/Probes/DispatchMain"),
        .testTarget(name: "AcceptanceTests", dependencies: ["Sluice", "SluiceExtras", "SluiceSchedulers", "SluiceTesting", "seed-000", "seed-002", "seed-004",
                                                           "dispatch-main-probe"],
                    exclude: ["Seeds", "Probes"]),
        .testTarget(name: "SluiceTestingTests", dependencies: ["Sluice", "SluiceExtras", "SluiceSchedulers", "SluiceTesting"]),
        // A third-party library's overloads of Combine's names, and a test that calls written
        // with Combine's names still resolve as against Apple's Combine beside them.
        .target(name: "ThirdPartyOverloads", dependencies: ["Sluice"], path: "Tests/ThirdPartyOverloads/Sources"),
        .testTarget(name: "ThirdPartyOverloadsTests", dependencies: ["ThirdPartyOverloads", "Sluice", "SluiceExtras"],
                    path: "Tests/ThirdPartyOverloads/Tests"),
        .testTarget(name: "SluiceRxTests", dependencies: ["Sluice", "SluiceExtras", "SluiceSchedulers", "SluiceTesting", "SluiceRx", "SluiceRxBlocking", "SluiceRxTest"]),
        // Worked examples (Examples/*/README.md): each a library target and its tests.
        .target(name: "SearchModelExample", dependencies: ["Sluice", "SluiceExtras", "SluiceSchedulers"], path: "Examples/SearchModel/Sources",
                swiftSettings: exampleSettings),
        .testTarget(name: "SearchModelExampleTests", dependencies: ["SearchModelExample", "Sluice", "SluiceExtras", "SluiceSchedulers", "SluiceTesting"],
                    path: "Examples/SearchModel/Tests", swiftSettings: exampleSettings),
        .target(name: "ThumbnailLoaderExample", dependencies: ["Sluice", "SluiceExtras", "SluiceSchedulers"], path: "Examples/ThumbnailLoader/Sources",
                swiftSettings: exampleSettings),
        .testTarget(name: "ThumbnailLoaderExampleTests", dependencies: ["ThumbnailLoaderExample", "Sluice", "SluiceExtras", "SluiceSchedulers", "SluiceTesting"],
                    path: "Examples/ThumbnailLoader/Tests", swiftSettings: exampleSettings),
        .target(name: "StudioModeStateExample", dependencies: ["Sluice", "SluiceExtras", "SluiceSchedulers"], path: "Examples/StudioModeState/Sources",
                swiftSettings: exampleSettings),
        .testTarget(name: "StudioModeStateExampleTests", dependencies: ["StudioModeStateExample", "Sluice", "SluiceExtras", "SluiceSchedulers", "SluiceTesting"],
                    path: "Examples/StudioModeState/Tests", swiftSettings: exampleSettings),
    ]
)
