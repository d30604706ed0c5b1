// Cross-platform code imports SluiceShim: Apple's Combine where it exists, Sluice elsewhere.
// (`canImport(Darwin)` first: on Linux, Sluice's own `Combine` module may sit in the same build
// and make `canImport(Combine)` true without being a dependency of this target.)
#if canImport(Darwin) && canImport(Combine)
@_exported import Combine
#else
@_exported import Sluice
#endif
