import Foundation
import SalesforceSDKCommon

/// The SDK's `SFSDKSmartStoreLogger` (`NS_SWIFT_NAME(SmartStoreLogger)`): SmartStore's component logger.
public final class SmartStoreLogger: NSObject, @unchecked Sendable {
    static var logger: SalesforceLogger { SalesforceLogger.logger(forComponent: "SmartStore") }
    public class func e(_ cls: AnyClass, message: String) { logger.e(cls, message: message) }
    public class func w(_ cls: AnyClass, message: String) { logger.w(cls, message: message) }
    public class func i(_ cls: AnyClass, message: String) { logger.i(cls, message: message) }
    public class func d(_ cls: AnyClass, message: String) { logger.d(cls, message: message) }
    public class func f(_ cls: AnyClass, message: String) { logger.f(cls, message: message) }
    public class func log(_ cls: AnyClass, level: SalesforceLogger.Level, message: String) { logger.log(cls, level: level, message: message) }
}
