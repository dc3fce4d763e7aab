// As the SDK's umbrella header: `import SmartStore` also gives SalesforceSDKCore's (and so
// SalesforceSDKCommon's) names.
@_exported import SalesforceSDKCore
