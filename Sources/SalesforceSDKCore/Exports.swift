// As the SDK's umbrella header: `import SalesforceSDKCore` also gives SalesforceSDKCommon's names (and Foundation
// through it), CryptoKit's `SymmetricKey`, which `KeyGenerator` returns, and UserNotifications, which
// `SFSDKPushNotificationDecryption.h` imports (its `UNMutableNotificationContent`).
@_exported import CryptoKit
@_exported import SalesforceSDKCommon
@_exported import UserNotifications
