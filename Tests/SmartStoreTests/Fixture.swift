import FastJSON
import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import SmartStoreEngine

/// A soup of ten employees, registered in a fresh store for each test.
enum Fixture {
    static let soup = "employees"

    static let specs = [
        IndexSpec(path: "employeeId", type: .string),
        IndexSpec(path: "firstName", type: .fullText),
        IndexSpec(path: "lastName", type: .fullText),
        IndexSpec(path: "deptCode", type: .string),
        IndexSpec(path: "age", type: .integer),
        IndexSpec(path: "salary", type: .floating),
        IndexSpec(path: "isManager", type: .json1),
        IndexSpec(path: "address.city", type: .string),
        IndexSpec(path: "phones.type", type: .string),
    ]

    static let people: [(String, String, String, Int64, Double, Bool)] = [
        ("Christina", "Haas", "A00", 45, 200_000.5, true),
        ("Michael", "Thompson", "B01", 38, 120_000, true),
        ("Sally", "Kwan", "C01", 41, 98_000, false),
        ("John", "Haas", "E01", 29, 70_000, false),
        ("Irving", "Stern", "D11", 52, 85_500.25, true),
        ("Eva", "Pulaski", "D21", 33, 96_000, false),
        ("Eileen", "Henderson", "E11", 47, 89_750, true),
        ("Theodore", "Spenser", "E21", 36, 86_150, false),
        ("Vincenzo", "Lucchessi", "A00", 61, 66_500, false),
        ("Sean", "O'Connell", "A00", 27, 49_250, false),
    ]

    static func entry(_ i: Int) -> SoupEntry {
        let (first, last, dept, age, salary, manager) = people[i]
        return [
            "employeeId": .string(String(format: "%05d", i + 1)), "firstName": .string(first), "lastName": .string(last),
            "deptCode": .string(dept), "age": .int(age), "salary": .double(salary), "isManager": .bool(manager),
            "address": ["city": i % 2 == 0 ? "Paris" : "Lyon", "zip": "75001"],
            "phones": [["type": "work", "number": "1"], ["type": i < 5 ? "mobile" : "home", "number": "2"]],
        ]
    }

    /// A new store with the soup and its ten entries, removed after the test.
    static func store(_ test: XCTestCase, filled: Bool = true) throws -> SmartStore {
        let dir = try TestSupport.temporaryDirectory(test)
        let store = try SmartStore(url: dir.appendingPathComponent("store.sqlite"), name: "test")
        try store.registerSoup(soup, indexSpecs: specs)
        if filled { try store.upsert((0..<people.count).map(entry), into: soup) }
        return store
    }

    static func lastNames(_ results: [JSON]) -> [String] {
        results.compactMap { $0["lastName"]?.stringValue }
    }

    static func firstNames(_ results: [JSON]) -> [String] {
        results.compactMap { $0["firstName"]?.stringValue }
    }
}
