/// An `OSStatus` from the iOS Security framework, for the cases the keychain simulation produces.
public struct KeychainStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// `errSecSuccess`
    public static let success = KeychainStatus(rawValue: 0)
    /// `errSecItemNotFound`
    public static let itemNotFound = KeychainStatus(rawValue: -25300)
    /// `errSecDuplicateItem`
    public static let duplicateItem = KeychainStatus(rawValue: -25299)
    /// `errSecInteractionNotAllowed`: the keychain is locked (as during a background launch before first unlock).
    public static let interactionNotAllowed = KeychainStatus(rawValue: -25308)
    /// `errSecMissingEntitlement`: the process is not entitled to the access group.
    public static let missingEntitlement = KeychainStatus(rawValue: -34018)
    /// `errSecNotAvailable`: no keychain at all (here: no Secret Service on the session bus).
    public static let notAvailable = KeychainStatus(rawValue: -25291)
    /// `errSecParam`
    public static let param = KeychainStatus(rawValue: -50)
    /// `errSecIO`
    public static let io = KeychainStatus(rawValue: -36)

    public var name: String {
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

    public var description: String { "\(rawValue) (\(name))" }
}

/// A failed keychain call: the status and a message that names the problem and the fix, never a secret.
public struct KeychainError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: KeychainStatus
    public let message: String

    public init(status: KeychainStatus, message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { "keychain error \(status): \(message)" }
}

/// The result of a `KeychainHelper` call, shaped like the SDK's `KeychainResult`.
public struct KeychainResult: Sendable, Equatable {
    public let status: KeychainStatus
    /// The item's value for reads (possibly empty after `reset`); nil otherwise.
    public let data: [UInt8]?
    public let error: KeychainError?
    /// The access group of the item read or written, when the call succeeded.
    public var accessGroup: String? = nil

    public var success: Bool { status == .success }

    static func ok(_ data: [UInt8]? = nil, group: String? = nil) -> KeychainResult {
        KeychainResult(status: .success, data: data, error: nil, accessGroup: group)
    }
    public static func failure(_ status: KeychainStatus, _ message: String) -> KeychainResult {
        KeychainResult(status: status, data: nil, error: KeychainError(status: status, message: message))
    }
    static func failure(_ error: KeychainError) -> KeychainResult {
        KeychainResult(status: error.status, data: nil, error: error)
    }
}
