import Foundation

// libFuzzer entry for the project.pbxproj parser (Sources/XcodeProject/PBXParser.swift): any input
// ends in a value or a PBXParseError with a line and column inside the input, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    do {
        _ = try PBXParser.parse(bytes)
    } catch {
        let lines = bytes.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        precondition(error.line >= 1 && error.line <= lines && error.column >= 1, "position outside the input: \(error)")
    }
    return 0
}
