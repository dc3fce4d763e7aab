import Foundation

// libFuzzer entry for the IDP URL commands (Sources/SalesforceSDK/IDPCommand.swift): any text that is a
// URL either is no command, or is one whose own URL parses back to the same command; never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let url = URL(string: text), let command = IDPCommand(url: url) else { return 0 }
    let again = IDPCommand(url: command.url)
    precondition(again == command, "\(command) -> \(command.url) -> \(String(describing: again))")
    _ = command.traceInfo
    return 0
}
