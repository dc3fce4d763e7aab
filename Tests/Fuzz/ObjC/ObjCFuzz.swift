import Foundation

// libFuzzer entry for the Objective-C reader (Sources/SourceReader/ObjCReader.swift): any bytes, read as a
// developer's .m file, end in facts whose every site has a line inside the input and a column from 1;
// never a crash, never an index past the tokens (unbalanced brackets, a send cut short, a lone `@`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let facts = ObjCReader.read(text, file: "Fuzz.m")
    let lines = text.utf8.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
    for site in facts.sites {
        precondition(site.line >= 1 && site.line <= lines && site.column >= 1, "a site outside the input: \(site)")
    }
    _ = TargetFacts(files: [("Fuzz.m", facts)])
    return 0
}
