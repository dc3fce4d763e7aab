//
//  AppSetup.swift — what the app does first: name the group and turn it on, then start the SDK.
//

import Foundation
import MobileSync

enum AppSetup {
    static let appGroupName = "group.com.acme.recents"

    static func start() {
        DataSharingHelper.shared.appGroupName = appGroupName
        DataSharingHelper.shared.isAppGroupEnabled = true
        MobileSyncSDKManager.initializeSDK()
    }
}
