import Foundation
import Hummingbird

/// What a client asks first: the versions (`/services/data`), a version's resources, the global
/// describe (`sobjects`), an object's describe, and `limits`.
struct DescribeRoutes {
    let state: OrgState

    static let versions: [Int] = Array(31...66)
    static let dailyApiRequests = 15000

    struct VersionInfo: Codable {
        var label: String
        var url: String
        var version: String
    }

    /// v31.0 was Summer '14; three releases a year since.
    static func label(_ major: Int) -> String {
        let n = major - 31
        switch n % 3 {
        case 0: return "Summer '\(14 + n / 3)"
        case 1: return "Winter '\(15 + n / 3)"
        default: return "Spring '\(15 + n / 3)"
        }
    }

    func register(root router: Router<OrgContext>, api: RouterGroup<OrgContext>) {
        router.get("/services/data") { _, _ in
            HTTP.encoded(.ok, Self.versions.map { VersionInfo(label: Self.label($0), url: "/services/data/v\($0).0", version: "\($0).0") })
        }
        api.get { _, context in Self.resources(version: context.apiVersion) }
        api.get("sobjects") { _, context in self.global(version: context.apiVersion) }
        api.get("limits") { _, _ in try self.limits() }
    }

    static func resources(version: String) -> Outcome {
        let base = "/services/data/\(version)"
        return HTTP.encoded(.ok, [
            "sobjects": "\(base)/sobjects", "query": "\(base)/query", "queryAll": "\(base)/queryAll", "search": "\(base)/search",
            "limits": "\(base)/limits", "composite": "\(base)/composite",
        ])
    }

    struct ObjectSummary: Codable {
        var name, label, labelPlural, keyPrefix: String
        var custom, createable, updateable, deletable, queryable, searchable, retrieveable, layoutable: Bool
        var urls: [String: String]
    }

    func summary(_ o: ObjectDefinition, version: String) -> ObjectSummary {
        let base = "/services/data/\(version)/sobjects/\(o.name)"
        return ObjectSummary(
            name: o.name, label: o.label, labelPlural: o.labelPlural, keyPrefix: o.keyPrefix, custom: o.isCustom, createable: o.createable,
            updateable: o.createable, deletable: o.createable, queryable: true, searchable: o.name != "User", retrieveable: true, layoutable: false,
            urls: ["sobject": base, "describe": "\(base)/describe", "rowTemplate": "\(base)/{ID}"])
    }

    struct Global: Codable {
        var encoding = "UTF-8"
        var maxBatchSize = 200
        var sobjects: [ObjectSummary]
    }

    func global(version: String) -> Outcome {
        HTTP.encoded(.ok, Global(sobjects: state.definition.objects.map { summary($0, version: version) }))
    }

    struct PicklistValue: Codable {
        var active = true
        var defaultValue = false
        var label: String
        var validFor: String? = nil
        var value: String
    }

    struct FieldDescribe: Codable {
        var name, label, type, soapType: String
        var length, byteLength, precision, scale, digits: Int
        var nillable, createable, updateable, unique, externalId, idLookup, custom, calculated, nameField, filterable, sortable, defaultedOnCreate: Bool
        var referenceTo: [String]
        var relationshipName: String?
        var picklistValues: [PicklistValue]

        func encode(to encoder: any Encoder) throws {
            enum K: String, CodingKey {
                case name, label, type, soapType, length, byteLength, precision, scale, digits, nillable, createable, updateable, unique, externalId, idLookup,
                    custom, calculated, nameField, filterable, sortable, defaultedOnCreate, referenceTo, relationshipName, picklistValues
            }
            var c = encoder.container(keyedBy: K.self)
            try c.encode(name, forKey: .name); try c.encode(label, forKey: .label); try c.encode(type, forKey: .type)
            try c.encode(soapType, forKey: .soapType); try c.encode(length, forKey: .length); try c.encode(byteLength, forKey: .byteLength)
            try c.encode(precision, forKey: .precision); try c.encode(scale, forKey: .scale); try c.encode(digits, forKey: .digits)
            try c.encode(nillable, forKey: .nillable); try c.encode(createable, forKey: .createable); try c.encode(updateable, forKey: .updateable)
            try c.encode(unique, forKey: .unique); try c.encode(externalId, forKey: .externalId); try c.encode(idLookup, forKey: .idLookup)
            try c.encode(custom, forKey: .custom); try c.encode(calculated, forKey: .calculated); try c.encode(nameField, forKey: .nameField)
            try c.encode(filterable, forKey: .filterable); try c.encode(sortable, forKey: .sortable)
            try c.encode(defaultedOnCreate, forKey: .defaultedOnCreate); try c.encode(referenceTo, forKey: .referenceTo)
            if let relationshipName { try c.encode(relationshipName, forKey: .relationshipName) } else { try c.encodeNil(forKey: .relationshipName) }
            try c.encode(picklistValues, forKey: .picklistValues)
        }
    }

    struct ChildRelationship: Codable {
        var childSObject: String
        var field: String
        var relationshipName: String
        var cascadeDelete = false
    }

    struct Describe: Codable {
        var name, label, labelPlural, keyPrefix: String
        var custom, createable, updateable, deletable, queryable, searchable: Bool
        var fields: [FieldDescribe]
        var childRelationships: [ChildRelationship]
        var urls: [String: String]
    }

    func fieldDescribe(_ f: FieldDefinition, object: ObjectDefinition) -> FieldDescribe {
        let systemDefaulted = ["Id", "IsDeleted", "CreatedDate", "CreatedById", "LastModifiedDate", "LastModifiedById", "SystemModstamp", "OwnerId"].contains(f.name)
        let length = f.type.isText || f.type == .id || f.type == .reference ? f.effectiveLength : 0
        return FieldDescribe(
            name: f.name, label: f.displayLabel, type: f.type.rawValue, soapType: f.type.soapType, length: length, byteLength: length * 3,
            precision: f.type == .currency || f.type == .double || f.type == .percent ? 18 : 0, scale: f.type == .currency ? 2 : 0,
            digits: f.type == .int ? 9 : 0, nillable: !(f.isRequired || f.type == .id || f.type == .boolean || systemDefaulted && f.name != "OwnerId"),
            createable: f.isCreateable && object.createable, updateable: f.isUpdateable && object.createable, unique: f.isUnique, externalId: f.isExternalId,
            idLookup: f.type == .id || f.isExternalId || (f.idLookup ?? false), custom: f.isCustom, calculated: object.compoundName != nil && f.name == "Name",
            nameField: f.name == object.nameField, filterable: f.type != .textarea, sortable: f.type != .textarea,
            defaultedOnCreate: systemDefaulted || f.type == .boolean, referenceTo: f.referenceTo, relationshipName: f.relationshipName,
            picklistValues: (f.picklistValues ?? []).map { PicklistValue(label: $0, value: $0) })
    }

    func describe(type: String, version: String) throws -> Outcome {
        let object = try state.records.object(type)
        let s = summary(object, version: version)
        let children = state.definition.childRelationships(of: object.name).compactMap { child, field in
            field.childRelationshipName.map { ChildRelationship(childSObject: child.name, field: field.name, relationshipName: $0) }
        }
        return HTTP.encoded(.ok, Describe(
            name: object.name, label: object.label, labelPlural: object.labelPlural, keyPrefix: object.keyPrefix, custom: object.isCustom,
            createable: s.createable, updateable: s.updateable, deletable: s.deletable, queryable: true, searchable: s.searchable,
            fields: object.fields.map { fieldDescribe($0, object: object) }, childRelationships: children, urls: s.urls))
    }

    struct Limit: Codable {
        var Max: Int
        var Remaining: Int
    }

    /// A day's API requests count down with the requests the org served today (every instance's); the other limits are a
    /// Developer Edition's, unused.
    /// `db`: the transaction a composite request runs in, if any.
    func limits(_ db: SQLTransaction? = nil) throws -> Outcome {
        let used = try db.map { db in try state.database.apiRequests(db, Date()) } ?? state.grants.apiRequestCount()
        return HTTP.encoded(.ok, [
            "DailyApiRequests": Limit(Max: Self.dailyApiRequests, Remaining: max(0, Self.dailyApiRequests - used)),
            "DailyAsyncApexExecutions": Limit(Max: 250_000, Remaining: 250_000),
            "DailyBulkApiBatches": Limit(Max: 15000, Remaining: 15000),
            "DataStorageMB": Limit(Max: 5, Remaining: 5),
            "FileStorageMB": Limit(Max: 20, Remaining: 20),
            "HourlyODataCallout": Limit(Max: 10000, Remaining: 10000),
            "SingleEmail": Limit(Max: 15, Remaining: 15),
        ])
    }
}
