// The networking-free part of the SDK facade (accounts read side, launch, stores, notifications) is
// SDKCoreEngine, which an app extension links alone. Re-exported so that `import SalesforceSDK`
// still gives the whole facade, as the SDK's single module does.
@_exported import SDKCoreEngine
