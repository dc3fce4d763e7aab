import Foundation

/// `objects.json`: `{"objects": [{"name", "label", "labelPlural", "keyPrefix", "nameField",
/// "compoundName", "createable", "seed": {"<org name>": count}, "fields": [...]}]}`.
enum ObjectsFile {
    struct Raw: Decodable {
        struct Object: Decodable {
            var name: String
            var label: String?
            var labelPlural: String?
            var keyPrefix: String
            var nameField: String?
            var compoundName: [String]?
            var createable: Bool?
            var seed: [String: Int]?
            var fields: [FieldDefinition]
        }
        var objects: [Object]
    }

    static func load(_ url: URL) throws -> [ObjectDefinition] {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw OrgSimulatorError.fixture("\(url.path) cannot be read")
        }
        return try load(data: data, name: url.path)
    }

    static let reservedSystem: Set<String> = ["id", "isdeleted", "createddate", "createdbyid", "lastmodifieddate", "lastmodifiedbyid", "systemmodstamp"]

    static func load(data: Data, name: String) throws -> [ObjectDefinition] {
        let raw: Raw
        do {
            raw = try JSONDecoder().decode(Raw.self, from: data)
        } catch let error as DecodingError {
            throw OrgSimulatorError.fixture(JSONLocator.describe(error, data: data, file: name))
        } catch {
            throw OrgSimulatorError.fixture("\(name): \(error)")
        }
        var objects: [ObjectDefinition] = []
        var prefixes = Set<String>()
        func fail(_ path: [JSONLocator.Step], _ message: String) -> OrgSimulatorError {
            .fixture("\(name):\(JSONLocator.lineColumn(of: path, in: data)): \(message)")
        }
        for (i, o) in raw.objects.enumerated() {
            let at: [JSONLocator.Step] = [.key("objects"), .index(i)]
            guard Self.isAPIName(o.name) else { throw fail(at + [.key("name")], "'\(o.name)' is not an API name (letters, digits, _, custom objects end in __c)") }
            guard o.keyPrefix.count == 3, o.keyPrefix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                throw fail(at + [.key("keyPrefix")], "keyPrefix of \(o.name) must be 3 letters or digits")
            }
            guard prefixes.insert(o.keyPrefix).inserted else { throw fail(at + [.key("keyPrefix")], "keyPrefix \(o.keyPrefix) is used twice") }
            guard !objects.contains(where: { $0.name.lowercased() == o.name.lowercased() }) else { throw fail(at + [.key("name")], "object \(o.name) is defined twice") }
            var seen = Set<String>()
            for (j, f) in o.fields.enumerated() {
                let fat = at + [.key("fields"), .index(j)]
                guard Self.isAPIName(f.name) else { throw fail(fat + [.key("name")], "'\(f.name)' is not an API name") }
                guard !reservedSystem.contains(f.name.lowercased()) else { throw fail(fat + [.key("name")], "\(o.name).\(f.name) is a system field; every object has it") }
                guard seen.insert(f.name.lowercased()).inserted else { throw fail(fat + [.key("name")], "\(o.name).\(f.name) is defined twice") }
                if f.type == .reference {
                    guard !f.referenceTo.isEmpty else { throw fail(fat, "\(o.name).\(f.name) is a reference and needs referenceTo") }
                    guard let r = f.relationshipName, Self.isAPIName(r) else { throw fail(fat, "\(o.name).\(f.name) is a reference and needs a relationshipName") }
                    if f.isCustom, !r.hasSuffix("__r") { throw fail(fat + [.key("relationshipName")], "the relationship of custom field \(o.name).\(f.name) must end in __r") }
                }
                if f.type == .picklist, (f.picklistValues ?? []).isEmpty { throw fail(fat, "\(o.name).\(f.name) is a picklist and needs values") }
                if f.type == .id { throw fail(fat + [.key("type")], "\(o.name).\(f.name): only Id is of type id") }
                if let length = f.length, length <= 0 || length > 131_072 { throw fail(fat + [.key("length")], "\(o.name).\(f.name): length must be from 1 to 131072") }
                if o.name.hasSuffix("__c"), !f.isCustom, f.name != "Name" {
                    throw fail(fat + [.key("name")], "fields of custom object \(o.name) end in __c (except Name)")
                }
            }
            for part in o.compoundName ?? [] where !seen.contains(part.lowercased()) {
                throw fail(at + [.key("compoundName")], "compoundName of \(o.name) names '\(part)', which is not one of its fields")
            }
            objects.append(ObjectDefinition(
                name: o.name, label: o.label, labelPlural: o.labelPlural, keyPrefix: o.keyPrefix, nameField: o.nameField,
                compoundName: o.compoundName, createable: o.createable ?? true, seedCounts: o.seed ?? [:], declared: o.fields))
            if let nameField = o.nameField, objects.last?.field(nameField) == nil {
                throw fail(at + [.key("nameField")], "nameField of \(o.name) names '\(nameField)', which is not one of its fields")
            }
        }
        guard objects.contains(where: { $0.name == "User" }) else {
            throw OrgSimulatorError.fixture("\(name): the org needs a User object (owners and the users of orgs.json are Users)")
        }
        return objects
    }

    static func isAPIName(_ s: String) -> Bool {
        guard let first = s.first, first.isASCII, first.isLetter else { return false }
        guard s.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else { return false }
        let core = s.hasSuffix("__c") || s.hasSuffix("__r") ? String(s.dropLast(3)) : s
        return !core.contains("__") && !core.hasSuffix("_")
    }

    /// Used when a data directory has no objects.json: the standard objects this org always had.
    static let builtIn = """
        {"objects": [
          {"name": "User", "keyPrefix": "005", "compoundName": ["FirstName", "LastName"], "createable": false, "fields": [
            {"name": "Username", "type": "string", "length": 80, "required": true, "unique": true},
            {"name": "FirstName", "type": "string", "length": 40}, {"name": "LastName", "type": "string", "length": 80, "required": true},
            {"name": "Email", "type": "email", "required": true}, {"name": "IsActive", "type": "boolean"}]},
          {"name": "Contact", "keyPrefix": "003", "compoundName": ["FirstName", "LastName"], "fields": [
            {"name": "FirstName", "type": "string", "length": 40}, {"name": "LastName", "type": "string", "length": 80, "required": true},
            {"name": "Title", "type": "string", "length": 128}, {"name": "Email", "type": "email", "idLookup": true},
            {"name": "MobilePhone", "type": "phone", "length": 40}, {"name": "HomePhone", "type": "phone", "length": 40},
            {"name": "Department", "type": "string", "length": 80},
            {"name": "DeviceRecordId__c", "type": "string", "length": 64, "externalId": true, "unique": true}]},
          {"name": "MobilePushServiceDevice", "keyPrefix": "0Nw", "nameField": "ConnectionToken", "fields": [
            {"name": "ConnectionToken", "type": "string", "length": 255, "required": true},
            {"name": "ServiceType", "type": "picklist", "values": ["Apple", "Android"], "required": true},
            {"name": "ApplicationBundle", "type": "string", "length": 255}, {"name": "RsaPublicKey", "type": "textarea", "length": 4096},
            {"name": "CipherName", "type": "string", "length": 40}]}
        ]}
        """
}
