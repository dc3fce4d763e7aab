import Foundation

// libFuzzer entry for smart SQL conversion (Sources/SmartStoreEngine/SmartSQL.swift) against a soup with
// every kind of index: any input must convert or throw SmartStoreError, never crash.
private let contacts = SoupInfo(name: "contacts", table: "TABLE_1", indexes: [
    SoupInfo.Index(spec: IndexSpec(path: "Id", type: .string), column: "TABLE_1_0"),
    SoupInfo.Index(spec: IndexSpec(path: "LastName", type: .fullText), column: "TABLE_1_1"),
    SoupInfo.Index(spec: IndexSpec(path: "address.city", type: .json1), column: nil),
    SoupInfo.Index(spec: IndexSpec(path: "age", type: .integer), column: "TABLE_1_2"),
])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? SmartSQL.convert(text) { $0 == "contacts" ? contacts : nil }
    return 0
}
