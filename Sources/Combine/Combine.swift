// `import Combine` where Apple's Combine does not exist: this module is Sluice under Combine's
// name, so that code written for Combine, `Combine.`-qualified names included, builds unchanged.
// On Apple platforms Package.swift builds this folder as an empty module of another name
// (`SluiceCombineOnApple`), and `import Combine` finds Apple's framework.
#if !canImport(Darwin)
@_exported import Sluice
#endif
