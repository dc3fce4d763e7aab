//
//  SceneDelegate.swift — UI: opens the widget's links.
//

import UIKit
import SwiftUI
import MobileSync

class SceneDelegate: UIResponder, UIWindowSceneDelegate {
    var window: UIWindow?

    func scene(_ scene: UIScene, openURLContexts URLContexts: Set<UIOpenURLContext>) {
        guard let url = URLContexts.first?.url, let link = DeepLink(url: url),
              let data = ContactsData(user: UserAccountManager.shared.currentUserAccount)
        else { return }
        window?.rootViewController = UIHostingController(rootView: ContactDetailView(screen: ContactScreen.content(for: link, data: data)))
    }
}
