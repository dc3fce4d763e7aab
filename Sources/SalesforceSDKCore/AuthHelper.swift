import Foundation
import SalesforceSDKCommon

/// The SDK's `SFSDKAuthHelper` (`NS_SWIFT_NAME(AuthHelper)`), for code that runs in a process without UI:
/// the blocks registered here run when this process changes the current user (`UserAccountManager`), logs out
/// or switches. Logging in is the SDK's login screen, which is UI: `main-app login` (or AppGroupSimTesting's
/// `logIn`) does it; `loginIfRequired` runs its block when a user is there and says so when none is.
public final class AuthHelper: NSObject, @unchecked Sendable {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var observers: [NSObjectProtocol] = []

    public class func loginIfRequired(_ completionBlock: (() -> Void)?) {
        if UserAccountManager.shared.currentUserAccount != nil {
            completionBlock?()
        } else {
            SDKProcess.warn("AuthHelper.loginIfRequired: no user is logged in on this device and login is the SDK's login screen; log in with main-app login (or AppGroupSimTesting's logIn)")
        }
    }

    /// After a logout: the SDK shows the login screen (or the account picker); here the block runs.
    public class func handleLogout(_ completionBlock: (() -> Void)?) { completionBlock?() }

    public class func registerBlock(forCurrentUserChangeNotifications completionBlock: @escaping () -> Void) {
        observe([UserAccountManager.didChangeUser], completionBlock)
    }

    public class func registerBlock(forLogoutNotifications completionBlock: @escaping () -> Void) {
        observe([UserAccountManager.didLogoutUser], completionBlock)
    }

    public class func registerBlock(forSwitchUserNotifications completionBlock: @escaping () -> Void) {
        observe([UserAccountManager.didSwitchUser], completionBlock)
    }

    private class func observe(_ names: [Notification.Name], _ block: @escaping () -> Void) {
        let box = BlockBox(block)
        for name in names {
            let token = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { _ in box.block() }
            lock.withLock { observers.append(token) }
        }
    }
}

private final class BlockBox: @unchecked Sendable {
    let block: () -> Void
    init(_ block: @escaping () -> Void) { self.block = block }
}
