import Foundation

// libFuzzer entry for the project.pbxproj parser (Sources/XcodeProject/PBXParser.swift) and the project
// reader over it (XcodeProject.swift: the group tree, targets, settings, resources): any input ends in a
// value or a PBXParseError with a line and column inside the input, and a project that parses is read to
// the end or refused with an error; never a crash, never a walk without end (a cyclic group tree).
private let folder: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("pbx-fuzz-\(getpid())/P.xcodeproj")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    do {
        _ = try PBXParser.parse(bytes)
    } catch {
        let lines = bytes.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        precondition(error.line >= 1 && error.line <= lines && error.column >= 1, "position outside the input: \(error)")
        return 0
    }
    guard (try? bytes.write(to: folder.appendingPathComponent("project.pbxproj"))) != nil,
        let project = try? XcodeProject(at: folder)
    else { return 0 }
    for target in project.targets {
        _ = project.resources(of: target)
        _ = project.embeddedExtensions(of: target)
        for configuration in project.configurationNames { _ = try? project.settings(for: target, configuration: configuration) }
    }
    return 0
}
