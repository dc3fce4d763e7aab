import Foundation

// libFuzzer entry for SmartStore's byte-level JSON reader and writer (Sources/FastJSON/JSON*.swift):
// any bytes must parse or be refused, never crash; what parses must write and read back as an equal value
// (object keys are not kept in order, so the text itself may differ).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let value = JSON(text: text) else { return 0 }
    let written = value.text
    guard let again = JSON(text: written) else { fatalError("the writer's output does not parse: \(written)") }
    if again != value { fatalError("not the same value after writing and reading: \(written)") }
    return 0
}
