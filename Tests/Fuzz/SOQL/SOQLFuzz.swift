import Foundation

// libFuzzer entry for sf-simulator's SOQL parser and compiler (Sources/OrgSimulator/SOQL/SOQLParser.swift,
// SOQLCompiler.swift) against the fixture's objects. Any input must end in a plan or a
// SalesforceError, never a crash; and every plan's SQL must be accepted by SQLite (prepared against
// the org's tables), since SQL that SQLite refuses would reach a client as a 500.
private let definition: OrgDefinition = {
    // scripts/fuzz names the checkout; the fuzzer runs in its own scratch folder.
    let root = ProcessInfo.processInfo.environment["APPGROUPSIM_ROOT"] ?? FileManager.default.currentDirectoryPath
    let objects = try! ObjectsFile.load(URL(fileURLWithPath: root).appendingPathComponent("Fixtures/org/objects.json"))
    return OrgDefinition(seed: 1, referenceDate: Date(timeIntervalSince1970: 1_790_000_000), orgs: [], connectedApps: [], objects: objects)
}()

// SQLite through dlopen: the fuzzer is built by swiftc alone, without the package's modules.
private typealias Open = @convention(c) (UnsafePointer<CChar>, UnsafeMutablePointer<OpaquePointer?>) -> Int32
private typealias Prepare = @convention(c) (OpaquePointer?, UnsafePointer<CChar>, Int32, UnsafeMutablePointer<OpaquePointer?>, UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32
private typealias Finalize = @convention(c) (OpaquePointer?) -> Int32
private typealias Exec = @convention(c) (OpaquePointer?, UnsafePointer<CChar>, OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Int32
private typealias ErrorMessage = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>
private let lib = dlopen("libsqlite3.so.0", RTLD_NOW)!
private func symbol<T>(_ name: String, _: T.Type) -> T { unsafeBitCast(dlsym(lib, name)!, to: T.self) }
private let prepare = symbol("sqlite3_prepare_v2", Prepare.self)
private let finalize = symbol("sqlite3_finalize", Finalize.self)
private let errorMessage = symbol("sqlite3_errmsg", ErrorMessage.self)
private let db: OpaquePointer? = {
    var db: OpaquePointer?
    _ = symbol("sqlite3_open", Open.self)(":memory:", &db)
    let exec = symbol("sqlite3_exec", Exec.self)
    for object in definition.objects {
        let columns = object.fields.map { "\(SQL.quote($0.name)) \($0.type.columnType)" }.joined(separator: ", ")
        precondition(exec(db, "CREATE TABLE \(SQL.quote(object.table)) (org_id TEXT, \(columns))", nil, nil, nil) == 0)
    }
    return db
}()

private func mustPrepare(_ sql: String) {
    var statement: OpaquePointer?
    let status = prepare(db, sql, -1, &statement, nil)
    if status != 0 { fatalError("SQLite refused the compiled SQL (\(String(cString: errorMessage(db)))): \(sql)") }
    _ = finalize(statement)
}

private func check(_ plan: QueryPlan) {
    let object = definition.object(plan.object)!
    mustPrepare("SELECT \(plan.columns.joined(separator: ", ")) FROM \(SQL.quote(object.table)) t0 \(plan.joins) WHERE t0.org_id = ? AND \(plan.condition) ORDER BY \(plan.order)")
    if case .field(_, let expr) = plan.count { mustPrepare("SELECT COUNT(\(expr)) FROM \(SQL.quote(object.table)) t0 \(plan.joins) WHERE \(plan.condition)") }
    for child in plan.children { check(child.plan) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let query = try? SOQLParser.parse(text), let plan = try? SOQLCompiler.compile(query, definition: definition) else { return 0 }
    check(plan)
    return 0
}
