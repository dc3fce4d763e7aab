import Foundation

/// `Fixtures/org/orgs.json`: the orgs, their users and policies, and the connected app. Contacts are
/// generated from the seed, so the same file always gives the same org.
package struct OrgFixture: Sendable, Codable {
    package struct MobilePolicy: Sendable, Codable, Equatable {
        package var screenLock: Int
        package var pinLength: Int
    }

    package struct User: Sendable, Codable {
        package var id: String
        package var username: String
        package var password: String
        package var displayName: String
        package var email: String
    }

    package struct Org: Sendable, Codable {
        package var id: String
        package var name: String
        package var contactCount: Int
        package var mobilePolicy: MobilePolicy?
        package var users: [User]
    }

    package var seed: UInt64
    package var referenceDate: String
    /// One app (the first format) or several.
    package var connectedApp: OrgDefinition.ConnectedApp?
    package var connectedApps: [OrgDefinition.ConnectedApp]?
    package var orgs: [Org]

    /// Reads `orgs.json` from the data directory.
    package static func load(directory: URL) throws -> OrgFixture {
        let url = directory.appendingPathComponent("orgs.json")
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw OrgSimulatorError.fixture("\(url.path) is missing; pass --data with the Fixtures/org directory")
        }
        do {
            return try JSONDecoder().decode(OrgFixture.self, from: data)
        } catch let error as DecodingError {
            throw OrgSimulatorError.fixture(JSONLocator.describe(error, data: data, file: url.path))
        } catch {
            throw OrgSimulatorError.fixture("\(url.path) is not a valid org fixture: \(error)")
        }
    }
}

package enum OrgSimulatorError: Error, CustomStringConvertible {
    case fixture(String)
    case state(String)
    /// The state's database cannot be reached at start (sf-simulator exits 64).
    case unreachable(String)
    /// `--state`'s URL is not one sf-simulator can use (sf-simulator exits 64).
    case badURL(String)
    /// A shared database holds an org made from another definition (sf-simulator exits 64).
    case definitionDiffers(String)

    package var description: String {
        switch self {
        case .fixture(let m), .state(let m), .unreachable(let m), .badURL(let m), .definitionDiffers(let m): return m
        }
    }
}

/// Deterministic contacts: realistic names, titles, emails and phones, `LastModifiedDate` spread over
/// the year before the fixture's reference date. SplitMix64, so every platform gives the same data.
struct FixtureGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }

    static let firstNames = [
        "Ada", "Alan", "Amara", "Andre", "Beatriz", "Bruno", "Camille", "Chen", "Daniel", "Diego", "Elena", "Emeka", "Farah",
        "Felix", "Grace", "Hana", "Hugo", "Ines", "Ivan", "Jamal", "Julia", "Kenji", "Laila", "Lucas", "Maria", "Mateo",
        "Nadia", "Noah", "Olga", "Omar", "Priya", "Quinn", "Rafael", "Rosa", "Samir", "Sofia", "Tariq", "Uma", "Victor",
        "Wen", "Yara", "Zoe",
    ]
    static let lastNames = [
        "Adams", "Bauer", "Costa", "Dubois", "Eriksen", "Fischer", "Garcia", "Haas", "Ito", "Jensen", "Kowalski", "Lopez",
        "Moreau", "Nakamura", "Okafor", "Petrov", "Quintero", "Rossi", "Schmidt", "Tanaka", "Uddin", "Varga", "Weber",
        "Xu", "Yilmaz", "Zhang", "Silva", "Novak", "Kim", "Singh",
    ]
    static let titles = [
        "CEO", "CFO", "VP Sales", "Sales Manager", "Account Executive", "Buyer", "Procurement Lead", "Engineer",
        "Director of Operations", "Marketing Manager", "Office Manager", "IT Administrator",
    ]
    static let departments = ["Sales", "Finance", "Operations", "Engineering", "Marketing", "Procurement", "IT"]

    /// The org's contacts, oldest first.
    mutating func contacts(org: OrgFixture.Org, orgIndex: Int, reference: Date) -> [[String: FieldValue]] {
        var out: [[String: FieldValue]] = []
        out.reserveCapacity(org.contactCount)
        contacts(org: org, orgIndex: orgIndex, reference: reference) { out.append($0) }
        return out
    }

    /// The same contacts one at a time, so an org of a million is seeded without holding them all.
    mutating func contacts(org: OrgFixture.Org, orgIndex: Int, reference: Date, _ body: ([String: FieldValue]) throws -> Void) rethrows {
        let domain = org.name.lowercased() + ".example"
        let yearMs: UInt64 = 365 * 24 * 3600 * 1000
        var dates: [UInt64] = (0..<org.contactCount).map { _ in next() % yearMs }
        dates.sort(by: >)
        for i in 0..<org.contactCount {
            let first = pick(Self.firstNames)
            let last = pick(Self.lastNames)
            let modified = reference.addingTimeInterval(-Double(dates[i]) / 1000)
            let created = modified.addingTimeInterval(-Double(next() % (30 * 24 * 3600)))
            let phone = String(format: "+1 415 555 %04d", Int(next() % 10_000))
            try body([
                "Id": .string(SalesforceID.make(prefix: "003", number: orgIndex * 1_000_000 + i + 1)),
                "FirstName": .string(first), "LastName": .string(last), "Title": .string(pick(Self.titles)),
                "Email": .string("\(first).\(last)\(i + 1)@\(domain)".lowercased()), "MobilePhone": .string(phone),
                "HomePhone": next() % 3 == 0 ? .null : .string(String(format: "+1 650 555 %04d", Int(next() % 10_000))),
                "Department": .string(pick(Self.departments)),
                "CreatedDate": .string(SalesforceDate.string(created)),
                "LastModifiedDate": .string(SalesforceDate.string(modified)),
                "SystemModstamp": .string(SalesforceDate.string(modified)),
                "IsDeleted": .bool(false),
            ])
        }
    }
}
