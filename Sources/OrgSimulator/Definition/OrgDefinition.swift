import Foundation

/// The org definition (`Fixtures/org/`): `orgs.json` (orgs, users, policies, connected apps, the seed)
/// and `objects.json` (sObjects with typed fields and their seed rules). Every object also gets the
/// system fields a real org has (`Id`, `IsDeleted`, `CreatedDate`, `CreatedById`, `LastModifiedDate`,
/// `LastModifiedById`, `SystemModstamp`, and `OwnerId` except on User).
package struct OrgDefinition: Sendable {
    package var seed: UInt64
    package var referenceDate: Date
    package var orgs: [OrgFixture.Org]
    package var connectedApps: [ConnectedApp]
    package var objects: [ObjectDefinition]
    let byName: [String: Int]
    /// The bytes of the files this definition was read from (`orgs.json`, then `objects.json` or the built-in
    /// objects, each after its length), when it was read from files (`load`): what seeding a state from it depends on
    /// (the connected apps added at start are not seeded). In-memory orgs of one process seeded from the same share
    /// one seeding (`OrgState`, which hashes them; this file imports no Crypto: scripts/fuzz compiles it alone).
    package internal(set) var source: Data?

    package struct ConnectedApp: Sendable, Codable, Equatable {
        package var name: String?
        package var consumerKey: String
        package var redirectURIs: [String]
        package var scopes: [String]
        /// Overrides the org's policy for sessions of this app.
        package var mobilePolicy: OrgFixture.MobilePolicy?
        /// The briefcases assigned to this app (Briefcase Builder), served by `connect/briefcase/priming-records`.
        package var briefcases: [Briefcase]?
        /// At most this many priming records in one response (default 2,000); lower it to test relay tokens.
        package var primingRecordsPerResponse: Int?

        enum CodingKeys: String, CodingKey {
            case name, consumerKey, redirectURIs, redirectURI, scopes, mobilePolicy, briefcases, primingRecordsPerResponse
        }

        /// `redirectURI` (one) or `redirectURIs` (several).
        package init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            name = try c.decodeIfPresent(String.self, forKey: .name)
            consumerKey = try c.decode(String.self, forKey: .consumerKey)
            redirectURIs = try c.decodeIfPresent([String].self, forKey: .redirectURIs) ?? [c.decode(String.self, forKey: .redirectURI)]
            scopes = try c.decodeIfPresent([String].self, forKey: .scopes) ?? ["api", "web", "refresh_token"]
            mobilePolicy = try c.decodeIfPresent(OrgFixture.MobilePolicy.self, forKey: .mobilePolicy)
            briefcases = try c.decodeIfPresent([Briefcase].self, forKey: .briefcases)
            primingRecordsPerResponse = try c.decodeIfPresent(Int.self, forKey: .primingRecordsPerResponse)
            if let n = primingRecordsPerResponse, n < 1 {
                throw DecodingError.dataCorruptedError(
                    forKey: .primingRecordsPerResponse, in: c, debugDescription: "primingRecordsPerResponse must be at least 1 (it is \(n))")
            }
        }

        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodeIfPresent(name, forKey: .name)
            try c.encode(consumerKey, forKey: .consumerKey)
            try c.encode(redirectURIs, forKey: .redirectURIs)
            try c.encode(scopes, forKey: .scopes)
            try c.encodeIfPresent(mobilePolicy, forKey: .mobilePolicy)
            try c.encodeIfPresent(briefcases, forKey: .briefcases)
            try c.encodeIfPresent(primingRecordsPerResponse, forKey: .primingRecordsPerResponse)
        }

        package init(
            name: String? = nil, consumerKey: String, redirectURIs: [String], scopes: [String], mobilePolicy: OrgFixture.MobilePolicy? = nil,
            briefcases: [Briefcase]? = nil, primingRecordsPerResponse: Int? = nil
        ) {
            self.briefcases = briefcases
            self.primingRecordsPerResponse = primingRecordsPerResponse
            self.name = name
            self.consumerKey = consumerKey
            self.redirectURIs = redirectURIs
            self.scopes = scopes
            self.mobilePolicy = mobilePolicy
        }
    }

    /// A briefcase (Briefcase Builder): rules, each an object with an optional filter (a SOQL condition) and a
    /// record limit. Its rules are served in order, after the briefcases before it.
    package struct Briefcase: Sendable, Codable, Equatable {
        package var name: String
        package var rules: [Rule]

        package struct Rule: Sendable, Codable, Equatable {
            package var object: String
            package var filter: String?
            package var limit: Int?

            package init(object: String, filter: String? = nil, limit: Int? = nil) {
                self.object = object
                self.filter = filter
                self.limit = limit
            }
        }

        package init(name: String, rules: [Rule]) {
            self.name = name
            self.rules = rules
        }
    }

    package func object(_ name: String) -> ObjectDefinition? { byName[name.lowercased()].map { objects[$0] } }

    package func object(prefix: String) -> ObjectDefinition? { objects.first { $0.keyPrefix == prefix } }

    package func app(consumerKey: String) -> ConnectedApp? { connectedApps.first { $0.consumerKey == consumerKey } }

    /// Relationships from children to this object: `Contacts` on Account, `WorkOrders__r`, …
    package func childRelationships(of object: String) -> [(child: ObjectDefinition, field: FieldDefinition)] {
        objects.flatMap { child in
            child.fields.filter { $0.type == .reference && $0.referenceTo.contains { $0.lowercased() == object.lowercased() } && $0.childRelationshipName != nil }
                .map { (child, $0) }
        }
    }

    init(seed: UInt64, referenceDate: Date, orgs: [OrgFixture.Org], connectedApps: [ConnectedApp], objects: [ObjectDefinition]) {
        self.seed = seed
        self.referenceDate = referenceDate
        self.orgs = orgs
        self.connectedApps = connectedApps
        self.objects = objects
        byName = Dictionary(objects.enumerated().map { ($1.name.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Reads and checks `orgs.json` and `objects.json` from `directory`; `extraApps` come from
    /// `--connected-app`. A mistake is refused with the file, line and column.
    package static func load(directory: URL, extraApps: [ConnectedApp] = []) throws -> OrgDefinition {
        let fixture = try OrgFixture.load(directory: directory)
        guard let reference = SalesforceDate.parse(fixture.referenceDate) else {
            throw OrgSimulatorError.fixture("\(directory.appendingPathComponent("orgs.json").path): referenceDate '\(fixture.referenceDate)' is not a date")
        }
        let objectsURL = directory.appendingPathComponent("objects.json")
        let objects: [ObjectDefinition]
        if FileManager.default.fileExists(atPath: objectsURL.path) {
            objects = try ObjectsFile.load(objectsURL)
        } else {
            objects = try ObjectsFile.load(data: Data(ObjectsFile.builtIn.utf8), name: "(built-in objects)")
        }
        var apps = fixture.connectedApps ?? []
        if let app = fixture.connectedApp { apps.insert(app, at: 0) }
        for extra in extraApps {
            if let i = apps.firstIndex(where: { $0.consumerKey == extra.consumerKey }) {
                apps[i].redirectURIs = Array(Set(apps[i].redirectURIs + extra.redirectURIs)).sorted()
                if let briefcases = extra.briefcases { apps[i].briefcases = briefcases }
                if let n = extra.primingRecordsPerResponse { apps[i].primingRecordsPerResponse = n }
            } else {
                apps.append(extra)
            }
        }
        var definition = OrgDefinition(seed: fixture.seed, referenceDate: reference, orgs: fixture.orgs, connectedApps: apps, objects: objects)
        var source = Data()
        for url in [directory.appendingPathComponent("orgs.json"), objectsURL] {
            let data = FileManager.default.contents(atPath: url.path) ?? Data(ObjectsFile.builtIn.utf8)
            source.append(Data("\(data.count):".utf8))
            source.append(data)
        }
        definition.source = source
        try definition.check(file: objectsURL.path)
        try definition.checkBriefcases(file: directory.appendingPathComponent("orgs.json").path)
        return definition
    }

    /// A briefcase rule names an object of this org and a record limit of at least 1. (A filter is checked
    /// when it runs: one that does not compile is the response's rule error, as Salesforce reports it.)
    func checkBriefcases(file: String) throws {
        for app in connectedApps {
            for briefcase in app.briefcases ?? [] {
                for (i, rule) in briefcase.rules.enumerated() {
                    let at = "\(file): connected app \(app.consumerKey), briefcase '\(briefcase.name)', rule \(i + 1)"
                    guard object(rule.object) != nil else {
                        throw OrgSimulatorError.fixture("\(at): object \(rule.object) is not an object of this org (objects.json); name one of \(objects.map(\.name).joined(separator: ", "))")
                    }
                    if let limit = rule.limit, limit < 1 { throw OrgSimulatorError.fixture("\(at): limit must be at least 1 (it is \(limit))") }
                }
            }
        }
    }

    /// References point at objects of this org; relationship names are unique per object.
    func check(file: String) throws {
        for object in objects {
            var relationships = Set<String>()
            for field in object.fields where field.type == .reference {
                for target in field.referenceTo where self.object(target) == nil {
                    throw OrgSimulatorError.fixture("\(file): \(object.name).\(field.name) refers to '\(target)', which is not an object of this org")
                }
                if let r = field.relationshipName, !relationships.insert(r.lowercased()).inserted {
                    throw OrgSimulatorError.fixture("\(file): \(object.name) has two relationships named '\(r)'")
                }
            }
        }
        for object in objects {
            var children = Set<String>()
            for (child, field) in childRelationships(of: object.name) {
                guard let name = field.childRelationshipName else { continue }
                if !children.insert(name.lowercased()).inserted {
                    throw OrgSimulatorError.fixture("\(file): two child relationships of \(object.name) are named '\(name)' (one is \(child.name).\(field.name))")
                }
            }
        }
    }
}

/// A field's type, as `describe` names it.
package enum FieldType: String, Sendable, Codable, CaseIterable {
    case id, string, textarea, email, phone, url, picklist, boolean, int, double, currency, percent, date, datetime, reference

    var isText: Bool { [.string, .textarea, .email, .phone, .url, .picklist].contains(self) }
    var isNumber: Bool { [.int, .double, .currency, .percent].contains(self) }

    var soapType: String {
        switch self {
        case .id, .reference: return "tns:ID"
        case .boolean: return "xsd:boolean"
        case .int: return "xsd:int"
        case .double, .currency, .percent: return "xsd:double"
        case .date: return "xsd:date"
        case .datetime: return "xsd:dateTime"
        default: return "xsd:string"
        }
    }

    /// How SQLite keeps it: text compares case-insensitively, as SOQL does; ids exactly.
    var columnType: String {
        switch self {
        case .id, .reference, .date, .datetime: return "TEXT"
        case .boolean, .int: return "INTEGER"
        case .double, .currency, .percent: return "REAL"
        default: return "TEXT COLLATE NOCASE"
        }
    }
}

package struct FieldDefinition: Sendable, Codable, Equatable {
    package var name: String
    package var type: FieldType
    package var label: String?
    package var length: Int?
    package var required: Bool?
    package var unique: Bool?
    package var externalId: Bool?
    /// Upsert may match on it (Contact.Email is one in a real org).
    package var idLookup: Bool?
    package var createable: Bool?
    package var updateable: Bool?
    package var referenceTo: [String]
    package var relationshipName: String?
    package var childRelationshipName: String?
    package var picklistValues: [String]?
    /// Seed generator: values to pick from (text fields), and a range (numbers and dates, in days from
    /// the reference date).
    package var samples: [String]?
    package var min: Double?
    package var max: Double?
    /// Seed generator: leave it empty.
    package var noSeed: Bool?

    enum CodingKeys: String, CodingKey {
        case name, type, label, length, required, unique, externalId, idLookup, createable, updateable, referenceTo, relationshipName,
            childRelationshipName, picklistValues = "values", samples, min, max, noSeed
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        type = try c.decode(FieldType.self, forKey: .type)
        label = try c.decodeIfPresent(String.self, forKey: .label)
        length = try c.decodeIfPresent(Int.self, forKey: .length)
        required = try c.decodeIfPresent(Bool.self, forKey: .required)
        unique = try c.decodeIfPresent(Bool.self, forKey: .unique)
        externalId = try c.decodeIfPresent(Bool.self, forKey: .externalId)
        idLookup = try c.decodeIfPresent(Bool.self, forKey: .idLookup)
        createable = try c.decodeIfPresent(Bool.self, forKey: .createable)
        updateable = try c.decodeIfPresent(Bool.self, forKey: .updateable)
        // One target or several (a polymorphic lookup such as Task.WhatId).
        if let one = try? c.decode(String.self, forKey: .referenceTo) {
            referenceTo = [one]
        } else {
            referenceTo = try c.decodeIfPresent([String].self, forKey: .referenceTo) ?? []
        }
        relationshipName = try c.decodeIfPresent(String.self, forKey: .relationshipName)
        childRelationshipName = try c.decodeIfPresent(String.self, forKey: .childRelationshipName)
        picklistValues = try c.decodeIfPresent([String].self, forKey: .picklistValues)
        samples = try c.decodeIfPresent([String].self, forKey: .samples)
        min = try c.decodeIfPresent(Double.self, forKey: .min)
        max = try c.decodeIfPresent(Double.self, forKey: .max)
        noSeed = try c.decodeIfPresent(Bool.self, forKey: .noSeed)
    }

    init(_ name: String, _ type: FieldType, length: Int? = nil, required: Bool = false, createable: Bool = true, updateable: Bool = true,
         referenceTo: [String] = [], relationshipName: String? = nil, label: String? = nil)
    {
        self.name = name
        self.type = type
        self.label = label
        self.length = length
        self.required = required
        self.createable = createable
        self.updateable = updateable
        self.referenceTo = referenceTo
        self.relationshipName = relationshipName
    }

    package var isCreateable: Bool { createable ?? true }
    package var isUpdateable: Bool { updateable ?? true }
    package var isRequired: Bool { required ?? false }
    package var isExternalId: Bool { externalId ?? false }
    package var isUnique: Bool { unique ?? false }
    package var isCustom: Bool { name.hasSuffix("__c") }
    /// Fields that may identify a record in an upsert: `Id`, External ID fields and idLookup fields.
    package var matchesForUpsert: Bool { type == .id || isExternalId || (idLookup ?? false) }
    package var displayLabel: String { label ?? Self.labelFrom(name) }

    static func labelFrom(_ name: String) -> String {
        var base = name.hasSuffix("__c") ? String(name.dropLast(3)) : name
        if base.hasSuffix("Id"), base.count > 2 { base = String(base.dropLast(2)) }
        var out = ""
        for (i, c) in base.enumerated() {
            if i > 0, c.isUppercase, let prev = out.last, prev.isLowercase { out.append(" ") }
            out.append(c == "_" ? " " : c)
        }
        return out
    }

    var effectiveLength: Int {
        if let length { return length }
        switch type {
        case .id, .reference: return 18
        case .textarea: return 32_000
        case .email, .phone: return 80
        case .url: return 255
        case .picklist: return 255
        case .string: return 255
        default: return 0
        }
    }
}

package struct ObjectDefinition: Sendable, Equatable {
    package var name: String
    package var label: String
    package var labelPlural: String
    package var keyPrefix: String
    /// The field `Name` shows (Task's is Subject), or nil.
    package var nameField: String?
    /// `Name` made of these fields, e.g. FirstName and LastName on Contact.
    package var compoundName: [String]?
    package var createable: Bool
    /// Seed: records per org (by org name), generated before any later object in the file.
    package var seedCounts: [String: Int]
    package var fields: [FieldDefinition]
    let fieldIndex: [String: Int]

    package var isCustom: Bool { name.hasSuffix("__c") }

    package func field(_ name: String) -> FieldDefinition? { fieldIndex[name.lowercased()].map { fields[$0] } }

    /// The reference field whose relationship name is `name` (`Account` → AccountId, `Owner` → OwnerId).
    package func relationship(_ name: String) -> FieldDefinition? {
        fields.first { $0.type == .reference && $0.relationshipName?.lowercased() == name.lowercased() }
    }

    /// The SQLite table of this object.
    var table: String { "obj_" + name }

    init(name: String, label: String?, labelPlural: String?, keyPrefix: String, nameField: String?, compoundName: [String]?, createable: Bool,
         seedCounts: [String: Int], declared: [FieldDefinition])
    {
        self.name = name
        self.label = label ?? FieldDefinition.labelFrom(name)
        self.labelPlural = labelPlural ?? (self.label + "s")
        self.keyPrefix = keyPrefix
        self.nameField = nameField ?? (compoundName != nil || declared.contains { $0.name == "Name" } ? "Name" : nil)
        self.compoundName = compoundName
        self.createable = createable
        self.seedCounts = seedCounts
        var fields = [FieldDefinition("Id", .id, createable: false, updateable: false)]
        fields += declared
        var system: [FieldDefinition] = [
            FieldDefinition("IsDeleted", .boolean, createable: false, updateable: false),
            FieldDefinition("CreatedDate", .datetime, createable: false, updateable: false),
            FieldDefinition("CreatedById", .reference, createable: false, updateable: false, referenceTo: ["User"], relationshipName: "CreatedBy"),
            FieldDefinition("LastModifiedDate", .datetime, createable: false, updateable: false),
            FieldDefinition("LastModifiedById", .reference, createable: false, updateable: false, referenceTo: ["User"], relationshipName: "LastModifiedBy"),
            FieldDefinition("SystemModstamp", .datetime, createable: false, updateable: false),
        ]
        if name != "User" { system.insert(FieldDefinition("OwnerId", .reference, referenceTo: ["User"], relationshipName: "Owner"), at: 0) }
        if let compoundName, !declared.contains(where: { $0.name == "Name" }) {
            fields.append(FieldDefinition("Name", .string, length: compoundName.count * 80 + 1, createable: false, updateable: false, label: "Full Name"))
        }
        for field in system where !fields.contains(where: { $0.name.lowercased() == field.name.lowercased() }) { fields.append(field) }
        self.fields = fields
        fieldIndex = Dictionary(fields.enumerated().map { ($1.name.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
    }
}
