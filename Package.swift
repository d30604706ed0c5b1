// swift-tools-version:6.0
import PackageDescription

// Library targets build in Swift 5 language mode with complete strict-concurrency checking
// (DESIGN.md, "Language mode and isolation"): operator closures stay plain, non-@Sendable
// closures as in Combine, and main-actor closures handed to them get the compiler's run-time
// isolation check instead of racing silently.
let librarySettings: [SwiftSetting] = [
    .swiftLanguageMode(.v5),
    .enableUpcomingFeature("StrictConcurrency"),
]

// Examples/ are user code: Swift 6 language mode (this tools version's default, spelled out so
// that it survives a change of tools version), not the library settings above.
let exampleSettings: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "Sluice",
    products: [
        .library(name: "Sluice", targets: ["Sluice"]),
        .library(name: "SluiceTesting", targets: ["SluiceTesting"]),
        .library(name: "SluiceRx", targets: ["SluiceRx"]),
        .library(name: "SluiceRxBlocking", targets: ["SluiceRxBlocking"]),
        .library(name: "SluiceRxTest", targets: ["SluiceRxTest"]),
        .library(name: "SluiceShim", targets: ["SluiceShim"]),
        .executable(name: "sluice-tour", targets: ["sluice-tour"]),
        .executable(name: "sluice-bench", targets: ["sluice-bench"]),
    ],
    targets: [
        .target(name: "Sluice", swiftSettings: librarySettings),
        .target(name: "SluiceTesting", dependencies: ["Sluice"], swiftSettings: librarySettings),
        // SluiceRx is RxSwift's spelling on Sluice; SluiceRxBlocking is RxBlocking's toBlocking and
        // SluiceRxTest RxTest's TestScheduler, both resting on SluiceTesting, as test-only modules.
        .target(name: "SluiceRx", dependencies: ["Sluice"], swiftSettings: librarySettings),
        .target(name: "SluiceRxBlocking", dependencies: ["Sluice", "SluiceTesting", "SluiceRx"], swiftSettings: librarySettings),
        .target(name: "SluiceRxTest", dependencies: ["Sluice", "SluiceTesting", "SluiceRx"], swiftSettings: librarySettings),
        .target(name: "SluiceShim", dependencies: ["Sluice"], swiftSettings: librarySettings),
        .executableTarget(name: "sluice-tour", dependencies: ["Sluice", "SluiceTesting", "SluiceRx", "SluiceRxBlocking"]),
        .target(name: "SluiceBenchSupport"),
        .executableTarget(name: "sluice-bench", dependencies: ["Sluice", "SluiceTesting", "SluiceBenchSupport", "SluiceRx"]),
        .testTarget(name: "SluiceTests", dependencies: ["Sluice", "SluiceTesting"]),
        // The seeds' code blocks as programs, each run by AcceptanceTests and checked for the
        // seed's assertions (Tests/AcceptanceTests/Seeds/*/main.swift).
        .executableTarget(name: "seed-000", dependencies: ["Sluice", "SluiceTesting"],
                          path: "Tests/AcceptanceTests/Seeds/Seed000"),
        .executableTarget(name: "seed-002", dependencies: ["SluiceRx"],
                          path: "Tests/AcceptanceTests/Seeds/Seed002"),
        .executableTarget(name: "seed-004", dependencies: ["SluiceRx", "SluiceRxBlocking"],
                          path: "Tests/AcceptanceTests/Seeds/Seed004"),
        .testTarget(name: "AcceptanceTests", dependencies: ["Sluice", "SluiceTesting", "seed-000", "seed-002", "seed-004"],
                    exclude: ["Seeds"]),
        .testTarget(name: "SluiceTestingTests", dependencies: ["Sluice", "SluiceTesting"]),
        // A third-party library's overloads of Combine's names, and a test that calls written
        // with Combine's names still resolve as against Apple's Combine beside them.
        .target(name: "ThirdPartyOverloads", dependencies: ["Sluice"], path: "Tests/ThirdPartyOverloads/Sources"),
        .testTarget(name: "ThirdPartyOverloadsTests", dependencies: ["ThirdPartyOverloads", "Sluice"],
                    path: "Tests/ThirdPartyOverloads/Tests"),
        .testTarget(name: "SluiceRxTests", dependencies: ["Sluice", "SluiceTesting", "SluiceRx", "SluiceRxBlocking", "SluiceRxTest"]),
        // Worked examples (Examples/*/README.md): each a library target and its tests.
        .target(name: "SearchModelExample", dependencies: ["Sluice"], path: "Examples/SearchModel/Sources",
                swiftSettings: exampleSettings),
        .testTarget(name: "SearchModelExampleTests", dependencies: ["SearchModelExample", "Sluice", "SluiceTesting"],
                    path: "Examples/SearchModel/Tests", swiftSettings: exampleSettings),
        .target(name: "ThumbnailLoaderExample", dependencies: ["Sluice"], path: "Examples/ThumbnailLoader/Sources",
                swiftSettings: exampleSettings),
        .testTarget(name: "ThumbnailLoaderExampleTests", dependencies: ["ThumbnailLoaderExample", "Sluice", "SluiceTesting"],
                    path: "Examples/ThumbnailLoader/Tests", swiftSettings: exampleSettings),
        .target(name: "StudioModeStateExample", dependencies: ["Sluice"], path: "Examples/StudioModeState/Sources",
                swiftSettings: exampleSettings),
        .testTarget(name: "StudioModeStateExampleTests", dependencies: ["StudioModeStateExample", "Sluice", "SluiceTesting"],
                    path: "Examples/StudioModeState/Tests", swiftSettings: exampleSettings),
    ]
)
