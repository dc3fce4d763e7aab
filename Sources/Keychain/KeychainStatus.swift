/// An `OSStatus` from the iOS Security framework, for the cases the keychain simulation produces.
package struct KeychainStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// `errSecSuccess`
    package static let success = KeychainStatus(rawValue: 0)
    /// `errSecItemNotFound`
    package static let itemNotFound = KeychainStatus(rawValue: -25300)
    /// `errSecDuplicateItem`
    package static let duplicateItem = KeychainStatus(rawValue: -25299)
    /// `errSecInteractionNotAllowed`: the keychain is locked (as during a background launch before first unlock).
    package static let interactionNotAllowed = KeychainStatus(rawValue: -25308)
    /// `errSecMissingEntitlement`: the process is not entitled to the access group.
    package static let missingEntitlement = KeychainStatus(rawValue: -34018)
    /// `errSecNotAvailable`: no keychain at all (here: no Secret Service on the session bus).
    package static let notAvailable = KeychainStatus(rawValue: -25291)
    /// `errSecParam`
    package static let param = KeychainStatus(rawValue: -50)
    /// `errSecIO`
    package static let io = KeychainStatus(rawValue: -36)

    package var name: String {
        switch self {
        case .success: return "errSecSuccess"
        case .itemNotFound: return "errSecItemNotFound"
        case .duplicateItem: return "errSecDuplicateItem"
        case .interactionNotAllowed: return "errSecInteractionNotAllowed"
        case .missingEntitlement: return "errSecMissingEntitlement"
        case .notAvailable: return "errSecNotAvailable"
        case .param: return "errSecParam"
        case .io: return "errSecIO"
        default: return "OSStatus"
        }
    }

    package var description: String { "\(rawValue) (\(name))" }
}

/// A failed keychain call: the status and a message that names the problem and the fix, never a secret.
package struct KeychainError: Error, Sendable, Equatable, CustomStringConvertible {
    package let status: KeychainStatus
    package let message: String

    package init(status: KeychainStatus, message: String) {
        self.status = status
        self.message = message
    }

    package var description: String { "keychain error \(status): \(message)" }
}

/// The result of a `KeychainHelper` call, shaped like the SDK's `KeychainResult`.
package struct KeychainResult: Sendable, Equatable {
    package let status: KeychainStatus
    /// The item's value for reads (possibly empty after `reset`); nil otherwise.
    package let data: [UInt8]?
    package let error: KeychainError?
    /// The access group of the item read or written, when the call succeeded.
    package var accessGroup: String? = nil

    package var success: Bool { status == .success }

    static func ok(_ data: [UInt8]? = nil, group: String? = nil) -> KeychainResult {
        KeychainResult(status: .success, data: data, error: nil, accessGroup: group)
    }
    package static func failure(_ status: KeychainStatus, _ message: String) -> KeychainResult {
        KeychainResult(status: status, data: nil, error: KeychainError(status: status, message: message))
    }
    static func failure(_ error: KeychainError) -> KeychainResult {
        KeychainResult(status: error.status, data: nil, error: error)
    }
}
