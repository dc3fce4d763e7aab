import Foundation

// libFuzzer entry for sf-simulator's SOQL parser and evaluator (Sources/OrgSimulator/SOQL.swift).
// Any input must end in a query or a SOQLError, never a crash; a parsed query must run.
private let records: [[String: FieldValue]] = [
    ["Id": .string("003000000000001AAA"), "FirstName": .string("Ada"), "LastName": .string("Lovelace"),
     "LastModifiedDate": .string("2026-01-02T03:04:05.000+0000"), "Email": .null],
    ["Id": .string("003000000000002AAA"), "LastName": .string("O'Brien"), "LastModifiedDate": .string("not a date")],
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let query = try? SOQLParser.parse(text) { _ = query.run(on: records) }
    return 0
}
