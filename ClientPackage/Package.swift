// swift-tools-version:6.0
import PackageDescription

// Code written the way third-party Combine libraries are, built against this checkout as a user
// on Linux builds it: `import Combine` (Sluice's `Combine` product), its own `ReplaySubject`,
// `share(replay:)` and `Publishers.Timer`, and tests that drive time with SluiceSchedulers'
// `DispatchQueue.test`. `.ci/run` builds it with warnings as errors and runs its tests.
//
// `Sluice` here is a link to the repository root, so that the dependency's identity is `Sluice`
// whatever the checkout's folder is called.
let package = Package(
    name: "ClientPackage",
    dependencies: [.package(path: "Sluice")],
    targets: [
        .target(name: "CombineStyleOperators",
                dependencies: [.product(name: "Combine", package: "Sluice")]),
        .testTarget(name: "CombineStyleOperatorsTests",
                    dependencies: ["CombineStyleOperators", .product(name: "Combine", package: "Sluice")]),
        .testTarget(name: "SchedulerStyleTests",
                    dependencies: ["CombineStyleOperators",
                                   .product(name: "Combine", package: "Sluice"),
                                   .product(name: "SluiceSchedulers", package: "Sluice")]),
    ]
)
