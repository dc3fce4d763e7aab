//
//  AppDelegate.swift — UI: the app's entry point.
//

import UIKit
import MobileSync

@main
class AppDelegate: UIResponder, UIApplicationDelegate {
    override init() {
        super.init()
        AppSetup.start()
    }

    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        true
    }

    func application(_ application: UIApplication, configurationForConnecting connectingSceneSession: UISceneSession, options: UIScene.ConnectionOptions) -> UISceneConfiguration {
        UISceneConfiguration(name: "Default Configuration", sessionRole: connectingSceneSession.role)
    }
}
