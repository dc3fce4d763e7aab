//
//  ContactColors.swift — the colours of a contact's initials (UIKit, without being a view).
//

import UIKit

extension UIColor {
    /// The template's blue for a contact's initials.
    static let contactInitials = UIColor(red: 1 / 255, green: 118 / 255, blue: 211 / 255, alpha: 1)
}
