import Foundation

// libFuzzer entry for the shared-defaults reader (SharedDefaults.decode in Sources/AppGroup): any
// bytes must decode to a dictionary or be refused as corrupt, never crash; what decodes must encode.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    if case .success(let dict) = SharedDefaults.decode(bytes) {
        _ = try? SharedDefaults.encode(dict)
    }
    return 0
}
