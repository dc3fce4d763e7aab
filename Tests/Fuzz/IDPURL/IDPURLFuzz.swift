import Foundation

// libFuzzer entry for the IDP URL commands (Sources/CoreNetworkEngine/IDPCommand.swift): any text that is a
// URL either is no command, or is one whose own URL parses back to the same command; never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let url = URL(string: text), let command = IDPCommand(url: url) else { return 0 }
    guard let built = try? command.url() else { preconditionFailure("a parsed command does not build: \(command)") }
    let again = IDPCommand(url: built)
    precondition(again == command, "\(command) -> \(built) -> \(String(describing: again))")
    _ = command.traceInfo
    return 0
}
