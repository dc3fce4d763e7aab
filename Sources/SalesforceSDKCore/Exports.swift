// As the SDK's umbrella header: `import SalesforceSDKCore` also gives SalesforceSDKCommon's names, and
// CryptoKit's `SymmetricKey`, which `KeyGenerator` returns.
@_exported import CryptoKit
@_exported import SalesforceSDKCommon
