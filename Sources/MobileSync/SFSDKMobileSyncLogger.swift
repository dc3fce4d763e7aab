import Foundation
import SalesforceSDKCommon

/// The SDK's `SFSDKMobileSyncLogger` (`NS_SWIFT_NAME(MobileSyncLogger)`): Mobile Sync's component logger.
public final class MobileSyncLogger: ComponentLogger, @unchecked Sendable {
    public override class var componentName: String { "MobileSync" }
}
