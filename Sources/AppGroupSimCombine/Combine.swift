// `import Combine` on Linux (issue 26): Apple's Combine exists only on Apple's systems, and the SDK's
// publishers and app data layers use it (`ObservableObject`, `@Published`, `Future`, `AnyCancellable`).
// This module re-exports OpenCombine, which implements the same names with the same semantics, so a
// developer's data code compiles here unchanged. Foundation's publishers (`NotificationCenter`,
// `Timer`, `URLSession`) come from OpenCombineFoundation, schedulers from OpenCombineDispatch.
//
// The module is named AppGroupSimCombine, never Combine: a module named Combine in a build's module
// directory makes every `#if canImport(Combine)` in every other package true (GRDB has nine), and
// those files then fail for want of OpenCombine's C module, or not, depending on build order. A
// developer's target reads it as Combine by asking the compiler, and only that target:
//
//     swiftSettings: [.unsafeFlags(["-module-alias", "Combine=AppGroupSimCombine"])]
@_exported import OpenCombine
@_exported import OpenCombineDispatch
@_exported import OpenCombineFoundation
