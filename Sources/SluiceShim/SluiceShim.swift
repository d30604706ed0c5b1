// Cross-platform code imports SluiceShim: Apple's Combine where it exists, Sluice elsewhere.
#if canImport(Combine)
@_exported import Combine
#else
@_exported import Sluice
#endif
