// `import Combine` on Linux (issue 26): Apple's Combine exists only on Apple's systems, and the SDK's
// publishers and app data layers use it (`ObservableObject`, `@Published`, `Future`, `AnyCancellable`).
// This module re-exports OpenCombine, which implements the same names with the same semantics, so a
// developer's data code compiles here unchanged. Foundation's publishers (`NotificationCenter`,
// `Timer`, `URLSession`) come from OpenCombineFoundation, schedulers from OpenCombineDispatch.
@_exported import OpenCombine
@_exported import OpenCombineDispatch
@_exported import OpenCombineFoundation
