import Foundation
import SalesforceSDKCommon

/// The SDK's `SFSDKSmartStoreLogger` (`NS_SWIFT_NAME(SmartStoreLogger)`): SmartStore's component logger.
public final class SmartStoreLogger: ComponentLogger, @unchecked Sendable {
    public override class var componentName: String { "SmartStore" }
}
