import Foundation
import Testing

@testable import SourceReader

/// Issue 37, item 5: a file that names a UIKit type is UI for the import, whatever its base class (the SDK's
/// iOSNativeLoginTemplate's NativeLoginViewFactory returns a `UIViewController` from an `NSObject`).
struct SwiftPortUITests {
    @Test func aUIKitTypeNamedAnywhereMakesTheFileUI() throws {
        let factory = """
            import SalesforceSDKCore
            class NativeLoginViewFactory: NSObject {
                func loginViewController() -> UIViewController { fatalError() }
            }
            """
        #expect(try SwiftPort.uiReason(factory, file: "NativeLoginViewFactory.swift") == "it names UIKit's UIViewController")
        let colour = "struct Theme { let tint = UIColor.red }"
        #expect(try SwiftPort.uiReason(colour, file: "Theme.swift") == "it names UIKit's UIColor")
    }

    @Test func aDataFileIsNot() throws {
        let model = """
            import Combine
            import SmartStore
            import MobileSync
            class AccountsListModel: ObservableObject {
                @Published var accounts: [String] = []
                let scheduler = RunLoop.main
                struct UIState { var loading = false }
                var state = UIState()
                func uid() -> String { "UID" }
            }
            """
        #expect(try SwiftPort.uiReason(model, file: "AccountsListModel.swift") == nil, "its own UIState, and a UID string, are not UIKit")
    }
}
