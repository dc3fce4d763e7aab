// `import CryptoKit` on Linux: Apple's CryptoKit exists only on Apple's systems; swift-crypto's Crypto module
// is Apple's own implementation of the same API (`SymmetricKey`, `AES.GCM`, `SHA256`, `P256`) for other
// platforms. The SDK's `KeyGenerator` returns a `SymmetricKey`, so developer code that keeps one compiles here.
@_exported import Crypto
