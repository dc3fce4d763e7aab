import Foundation

/// What can go wrong with a `SharedDefaults` file. Every case names the file.
package enum SharedDefaultsError: Error, Equatable, Sendable {
    /// The file was not a property list (or not a dictionary of string keys). It was renamed to `movedTo`;
    /// the store is empty from now on and the bad file is kept for inspection.
    case corruptFile(path: String, movedTo: String, detail: String)
    /// The file is corrupt and could not be moved aside, so the store refuses to start empty over it.
    case corruptFileNotMoved(path: String, detail: String, reason: String)
    /// Reading or writing the file (or its lock file) failed.
    case io(FileError)
    /// The file's protection class is not available in the device's lock state (iOS's data protection).
    case protected(FileProtectionError)
}

extension SharedDefaultsError: CustomStringConvertible, LocalizedError {
    package var description: String {
        switch self {
        case .corruptFile(let path, let movedTo, let detail):
            return "\(path) is not a valid property list (\(detail)); it was moved to \(movedTo) and the store starts empty. "
                + "Inspect it with `plutil -lint` or copy it back once repaired."
        case .corruptFileNotMoved(let path, let detail, let reason):
            return "\(path) is not a valid property list (\(detail)) and could not be moved aside (\(reason)); nothing was changed. "
                + "Move or repair the file by hand, then retry."
        case .io(let error):
            return "\(error.path): \(error.reason)"
        case .protected(let error):
            return error.description
        }
    }

    package var errorDescription: String? { description }
}
