// As the SDK's umbrella header: `import MobileSync` also gives SmartStore's and SalesforceSDKCore's names.
@_exported import SmartStore
