// As the SDK's Objective-C modules on iOS: `import SalesforceSDKCommon` (and so SalesforceSDKCore, SmartStore and
// MobileSync, which re-export it) gives Foundation, which their headers import. A file that imports only
// `SmartStore` and `MobileSync` then finds `RunLoop`, `Date` and `URL` as it does on iOS.
@_exported import Foundation
