import CoreEngine
import CoreNetworkEngine
import Foundation
import SalesforceSDKCommon

/// The SDK's `SFSDKAuthHelper` (`NS_SWIFT_NAME(AuthHelper)`), for code that runs in a process without UI:
/// the blocks registered here run when this process changes the current user (`UserAccountManager`), logs out
/// or switches. Logging in is the SDK's login screen, which is UI: `main-app login` (or AppGroupSimTesting's
/// `logIn`) does it; `loginIfRequired` runs its block when a user is there and says so when none is.
public final class AuthHelper: NSObject, @unchecked Sendable {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var observers: [NSObjectProtocol] = []

    /// The engine's `loginIfRequired`, as `main-app` runs it: a current user with a session skips the login, then
    /// the screen lock is checked; with no user and `shouldAuthenticate` on, the SDK shows its login screen, which
    /// is UI (`main-app login` or AppGroupSimTesting's `logIn` stand in for it): the block does not run, and one
    /// line says why. With `shouldAuthenticate` off the block runs (the app logs in later by itself).
    public class func loginIfRequired(_ completionBlock: (() -> Void)?) {
        let engine = SDKEngine.current
        let helper = engine.authHelper
        do {
            _ = try SDKProcess.blocking {
                try await helper.loginIfRequired {
                    engine.warn("AuthHelper.loginIfRequired: no user is logged in on this device and login is the SDK's login screen; log in with main-app login (or AppGroupSimTesting's logIn)")
                    return nil
                }
            }
            completionBlock?()
        } catch {
            if case SDKError.loginCancelled = error { return }
            engine.warn("AuthHelper.loginIfRequired: \(error)")
        }
    }

    /// The engine's `handleLogout`, then the block: one account left becomes the current user, as the SDK's
    /// `SFSDKAuthHelper` does; several leave the pick to the user (the SDK's picker is UI: nobody is made
    /// current); none is the login screen.
    public class func handleLogout(_ completionBlock: (() -> Void)?) {
        let engine = SDKEngine.current
        do { try engine.authHelper.handleLogout() } catch { engine.warn("AuthHelper.handleLogout: \(error)") }
        completionBlock?()
    }

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
