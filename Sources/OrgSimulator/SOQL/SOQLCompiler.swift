import Foundation

/// A bound SQL argument that a cursor can keep.
enum SQLArg: Codable, Sendable, Equatable {
    case null, int(Int64), double(Double), text(String)

}

enum SQL {
    /// A quoted SQL identifier (the same in SQLite and PostgreSQL).
    static func quote(_ identifier: String) -> String { "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}

/// What a query's answer looks like, column by column: fields, parent records (`"Account": {…}`),
/// child subqueries (`"Contacts": {"records": […]}`).
indirect enum OutputNode: Codable, Sendable {
    case field(name: String, column: Int, type: FieldType)
    case parent(name: String, types: [String], idColumns: [Int], nodes: [OutputNode])
    case child(name: String, index: Int)
}

/// A SOQL query compiled against the org definition into the backend's SQL (`SQLDialect`): the evaluator is the database itself,
/// so a query over a million rows runs on indexes and never loads the table into memory. Codable,
/// so a cursor keeps its plan in the state database.
struct QueryPlan: Codable, Sendable {
    enum Count: Codable, Sendable, Equatable { case none, rows, field(alias: String, expr: String) }

    var object: String
    /// `LEFT JOIN …` after the base table `t0`.
    var joins: String
    /// Column 0 is always `t0."Id"`.
    var columns: [String]
    var shape: [OutputNode]
    var children: [ChildPlan]
    /// Without the org and deletion filter, which the engine adds.
    var condition: String
    var arguments: [SQLArg]
    var order: String
    var limit: Int?
    var offset: Int?
    var count: Count

    struct ChildPlan: Codable, Sendable {
        var name: String
        /// The child's reference to the parent.
        var parentField: String
        var plan: QueryPlan
    }
}

struct SOQLCompiler {
    let definition: OrgDefinition
    /// "Now" for date literals.
    var now = Date()
    /// The backend's SQL the plan is written in.
    var dialect: SQLDialect = .sqlite
    private var joinAliases: [String: String] = [:]
    private var joinSQL: [String] = []
    private var columns: [String] = []

    init(definition: OrgDefinition, now: Date = Date(), dialect: SQLDialect = .sqlite) {
        self.definition = definition
        self.now = now
        self.dialect = dialect
    }

    static func compile(_ query: SOQLQuery, definition: OrgDefinition, now: Date = Date(), dialect: SQLDialect = .sqlite) throws -> QueryPlan {
        var compiler = SOQLCompiler(definition: definition, now: now, dialect: dialect)
        return try compiler.compile(query, allowSubqueries: true)
    }

    mutating func compile(_ query: SOQLQuery, allowSubqueries: Bool, extraCondition: String? = nil) throws -> QueryPlan {
        guard let object = definition.object(query.object) else {
            throw SalesforceError(.badRequest, "INVALID_TYPE", "sObject type '\(query.object)' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name.")
        }
        joinAliases = [:]
        joinSQL = []
        columns = ["t0.\"Id\""]
        var count = QueryPlan.Count.none
        var shape: [Node] = []
        var children: [QueryPlan.ChildPlan] = []
        for item in query.items {
            switch item {
            case .field(let path):
                try addSelected(path, object: object, into: &shape)
            case .count(let field, let alias):
                guard query.items.count == 1 else {
                    throw SOQLParser.malformed("COUNT() cannot be combined with other fields without GROUP BY, which this org does not support")
                }
                if let field {
                    let (expr, _) = try resolve(field, object: object, alias: "t0", prefix: "")
                    count = .field(alias: alias ?? "expr0", expr: expr)
                } else {
                    count = .rows
                }
            case .subquery(let inner):
                guard allowSubqueries else { throw SOQLParser.malformed("a subquery cannot contain another subquery") }
                guard let (child, field) = definition.childRelationships(of: object.name).first(where: { $0.field.childRelationshipName?.lowercased() == inner.object.lowercased() }) else {
                    throw SalesforceError(
                        .badRequest, "INVALID_TYPE",
                        "Didn't understand relationship '\(inner.object)' in FROM part of query call. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name.")
                }
                var sub = SOQLCompiler(definition: definition, now: now, dialect: dialect)
                var rewritten = inner
                rewritten.object = child.name
                var plan = try sub.compile(rewritten, allowSubqueries: false)
                plan.columns.append("t0.\(SQL.quote(field.name))")
                children.append(.init(name: field.childRelationshipName ?? inner.object, parentField: field.name, plan: plan))
                shape.append(.child(name: field.childRelationshipName ?? inner.object, index: children.count - 1))
            }
        }
        var arguments: [SQLArg] = []
        let condition = try query.condition.map { try where_($0, object: object, arguments: &arguments) }
        var order: [String] = []
        for o in query.orderBy {
            let (expr, field) = try resolve(o.path, object: object, alias: "t0", prefix: "")
            let collated = field.type.isText ? dialect.caseless(expr) : expr
            // SQLite sorts nulls as the smallest value, which is SOQL's default (first ascending, last
            // descending), and the dialect sorts them so on every backend; only the other choice needs a term
            // of its own, which keeps an index usable.
            if o.nullsFirst != o.ascending { order.append("(\(expr) IS NULL) \(o.nullsFirst ? "DESC" : "ASC")") }
            order.append(dialect.order(collated, ascending: o.ascending))
        }
        order.append("t0.\(dialect.rowNumber) ASC")
        var conditions = [condition, extraCondition].compactMap { $0 }
        if conditions.isEmpty { conditions = ["TRUE"] }
        return QueryPlan(
            object: object.name, joins: joinSQL.joined(separator: " "), columns: columns, shape: shape.map(\.output), children: children,
            condition: conditions.map { "(\($0))" }.joined(separator: " AND "), arguments: arguments, order: order.joined(separator: ", "),
            limit: query.limit, offset: query.offset, count: count)
    }

    // MARK: Names

    /// A field of `object` or of a parent by a relationship path, as an SQL expression.
    mutating func resolve(_ path: [String], object: ObjectDefinition, alias: String, prefix: String) throws -> (String, FieldDefinition) {
        if path.count == 1 {
            guard let field = object.field(path[0]) else { throw SalesforceError.invalidField(path[0], object: object.name) }
            return ("\(alias).\(SQL.quote(field.name))", field)
        }
        let (relationship, targets) = try self.relationship(path[0], of: object)
        if targets.count == 1 {
            let joined = join(prefix: prefix, relationship: relationship, target: targets[0], from: alias)
            return try resolve(Array(path.dropFirst()), object: targets[0], alias: joined, prefix: prefix + relationship.name + ".")
        }
        // A polymorphic lookup (Task.What): one level, the field from whichever target the record is.
        guard path.count == 2 else { throw SOQLParser.malformed("only one field after the polymorphic relationship '\(path[0])' is supported") }
        var exprs: [String] = []
        var found: FieldDefinition?
        for target in targets {
            guard let field = target.field(path[1]) else { continue }
            let joined = join(prefix: prefix, relationship: relationship, target: target, from: alias)
            exprs.append("\(joined).\(SQL.quote(field.name))")
            found = found ?? field
        }
        guard let found else { throw SalesforceError.invalidField(path.joined(separator: "."), object: object.name) }
        return (exprs.count == 1 ? exprs[0] : "COALESCE(\(exprs.joined(separator: ", ")))", found)
    }

    func relationship(_ name: String, of object: ObjectDefinition) throws -> (FieldDefinition, [ObjectDefinition]) {
        guard let field = object.relationship(name) else {
            throw SalesforceError(
                .badRequest, "INVALID_FIELD",
                "Didn't understand relationship '\(name)' in field path. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name.",
                fields: [name])
        }
        return (field, field.referenceTo.compactMap { definition.object($0) })
    }

    mutating func join(prefix: String, relationship: FieldDefinition, target: ObjectDefinition, from alias: String) -> String {
        let key = (prefix + relationship.name + ">" + target.name).lowercased()
        if let existing = joinAliases[key] { return existing }
        let joined = "t\(joinAliases.count + 1)"
        joinAliases[key] = joined
        joinSQL.append("LEFT JOIN \(SQL.quote(target.table)) \(joined) ON \(joined).\"Id\" = \(alias).\(SQL.quote(relationship.name))")
        return joined
    }

    // MARK: The select list

    final class Node {
        enum Kind { case field(String, Int, FieldType), parent(String, [String], [Int]), child(String, Int) }
        let kind: Kind
        var nodes: [Node] = []
        init(_ kind: Kind) { self.kind = kind }

        static func child(name: String, index: Int) -> Node { Node(.child(name, index)) }

        var output: OutputNode {
            switch kind {
            case .field(let n, let c, let t): return .field(name: n, column: c, type: t)
            case .parent(let n, let types, let ids): return .parent(name: n, types: types, idColumns: ids, nodes: nodes.map(\.output))
            case .child(let n, let i): return .child(name: n, index: i)
            }
        }
    }

    mutating func addSelected(_ path: [String], object: ObjectDefinition, into shape: inout [Node]) throws {
        let (expr, field) = try resolve(path, object: object, alias: "t0", prefix: "")
        // Walk the path again to build nested parent nodes with the canonical relationship names.
        var level = shape
        var parents: [Node] = []
        var current = object
        var alias = "t0"
        var prefix = ""
        for name in path.dropLast() {
            let (relationship, targets) = try self.relationship(name, of: current)
            let relName = relationship.relationshipName ?? name
            let existing = level.first { if case .parent(let n, _, _) = $0.kind { return n == relName } else { return false } }
            let node: Node
            if let existing {
                node = existing
            } else {
                var idColumns: [Int] = []
                for target in targets {
                    let joined = join(prefix: prefix, relationship: relationship, target: target, from: alias)
                    columns.append("\(joined).\"Id\"")
                    idColumns.append(columns.count - 1)
                }
                node = Node(.parent(relName, targets.map(\.name), idColumns))
                if parents.isEmpty { shape.append(node) } else { parents.last!.nodes.append(node) }
            }
            parents.append(node)
            level = node.nodes
            if targets.count == 1 {
                alias = join(prefix: prefix, relationship: relationship, target: targets[0], from: alias)
                current = targets[0]
            }
            prefix += relationship.name + "."
        }
        let leafName = path.count == 1 ? field.name : field.name
        let leaves = parents.last?.nodes ?? shape
        if leaves.contains(where: { if case .field(let n, _, _) = $0.kind { return n == leafName } else { return false } }) {
            throw SalesforceError(.badRequest, "MALFORMED_QUERY", "duplicate field selected: \(path.joined(separator: "."))")
        }
        columns.append(expr)
        let leaf = Node(.field(leafName, columns.count - 1, field.type))
        if let parent = parents.last { parent.nodes.append(leaf) } else { shape.append(leaf) }
    }

    // MARK: WHERE

    /// `terms` joined by `op` as a balanced tree of parenthesised pairs, built by rounds, not recursion. SQLite
    /// parses `a OR b OR c …` into a tree as deep as the chain is long and refuses one deeper than 1,000; the
    /// balanced form is log2(n) deep, so a chain of any length that SOQL allows runs.
    static func balanced(_ terms: [String], _ op: String) -> String {
        var level = terms
        while level.count > 1 {
            var next: [String] = []
            next.reserveCapacity(level.count / 2 + 1)
            var k = 0
            while k + 1 < level.count {
                next.append("(\(level[k]) \(op) \(level[k + 1]))")
                k += 2
            }
            if k < level.count { next.append(level[k]) }
            level = next
        }
        return level.first ?? (op == "AND" ? "TRUE" : "FALSE")
    }

    mutating func where_(_ condition: SOQLQuery.Condition, object: ObjectDefinition, arguments: inout [SQLArg]) throws -> String {
        switch condition {
        case .and(let terms):
            return Self.balanced(try terms.map { try where_($0, object: object, arguments: &arguments) }, "AND")
        case .or(let terms):
            return Self.balanced(try terms.map { try where_($0, object: object, arguments: &arguments) }, "OR")
        case .not(let c):
            return "(NOT \(try where_(c, object: object, arguments: &arguments)))"
        case .compare(let path, let op, let value):
            let (expr, field) = try resolve(path, object: object, alias: "t0", prefix: "")
            return "COALESCE(\(try comparison(expr, field, op, value, arguments: &arguments)), FALSE)"
        case .inList(let path, let values, let negated):
            let (expr, field) = try resolve(path, object: object, alias: "t0", prefix: "")
            var parts: [String] = []
            var hasNull = false
            var placeholders: [String] = []
            for value in values {
                if value == .null { hasNull = true; continue }
                guard case .single(let arg) = try coerce(value, field) else { throw SOQLParser.malformed("date literals are not allowed in IN") }
                arguments.append(arg)
                placeholders.append(field.type.isText ? dialect.caselessPlaceholder : "?")
            }
            let collated = field.type.isText ? dialect.caseless(expr) : expr
            if !placeholders.isEmpty { parts.append("\(collated) IN (\(placeholders.joined(separator: ", ")))") }
            if hasNull { parts.append("\(expr) IS NULL") }
            let positive = parts.isEmpty ? "FALSE" : parts.joined(separator: " OR ")
            // SOQL's NOT IN keeps records whose field is null, unless null is in the list.
            return negated ? "COALESCE(NOT (\(positive)), \(hasNull ? "FALSE" : "TRUE"))" : "COALESCE(\(positive), FALSE)"
        case .like(let path, let pattern, let negated):
            let (expr, field) = try resolve(path, object: object, alias: "t0", prefix: "")
            guard field.type.isText || field.type == .id || field.type == .reference else {
                throw SalesforceError(.badRequest, "INVALID_QUERY_FILTER_OPERATOR", "invalid operator on \(field.type.rawValue) field: \(field.name) LIKE")
            }
            arguments.append(.text(pattern))
            let like = dialect.like(expr, escape: "\\")
            return negated ? "COALESCE(NOT (\(like)), TRUE)" : "COALESCE(\(like), FALSE)"
        }
    }

    enum Coerced { case single(SQLArg), range(SQLArg, SQLArg) }

    mutating func comparison(_ expr: String, _ field: FieldDefinition, _ op: String, _ value: SOQLQuery.Value, arguments: inout [SQLArg]) throws -> String {
        if value == .null {
            switch op {
            case "=": return "\(expr) IS NULL"
            case "!=": return "\(expr) IS NOT NULL"
            default: return "FALSE"
            }
        }
        if (field.type == .boolean || field.type == .id || field.type == .reference), !["=", "!="].contains(op) {
            throw SalesforceError(.badRequest, "INVALID_QUERY_FILTER_OPERATOR", "invalid operator on \(field.type.rawValue) field: \(field.name) \(op)")
        }
        switch try coerce(value, field) {
        case .single(let arg):
            arguments.append(arg)
            let compared = dialect.compare(expr, op, text: field.type.isText)
            // SOQL's != keeps records whose field is null.
            return op == "!=" ? "(\(expr) IS NULL OR \(compared))" : compared
        case .range(let start, let end):
            switch op {
            case "=": arguments += [start, end]; return "(\(expr) >= ? AND \(expr) < ?)"
            case "!=": arguments += [start, end]; return "(\(expr) IS NULL OR \(expr) < ? OR \(expr) >= ?)"
            case "<": arguments.append(start); return "\(expr) < ?"
            case "<=": arguments.append(end); return "\(expr) < ?"
            case ">": arguments.append(end); return "\(expr) >= ?"
            default: arguments.append(start); return "\(expr) >= ?"
            }
        }
    }

    /// A literal in the field's type, or the error a real org gives for it.
    func coerce(_ value: SOQLQuery.Value, _ field: FieldDefinition) throws -> Coerced {
        func wrong(_ expected: String, quoted: Bool) -> SalesforceError {
            .malformedQuery("value of filter criterion for field '\(field.name)' must be of type \(expected)\(quoted ? " and should not be enclosed in quotes" : "")")
        }
        switch field.type {
        case .string, .textarea, .email, .phone, .url, .picklist:
            switch value {
            case .string(let s): return .single(.text(s))
            case .literal(let l): return .single(.text(l))
            default: throw wrong("string", quoted: false)
            }
        case .id, .reference:
            guard case .string(let s) = value else { throw wrong("id", quoted: false) }
            guard SalesforceID.isValid(s) else { throw SalesforceError(.badRequest, "INVALID_QUERY_FILTER_OPERATOR", "invalid ID field: \(s)") }
            return .single(.text(SalesforceID.key(s)))
        case .boolean:
            guard case .bool(let b) = value else { throw wrong("boolean", quoted: { if case .string = value { return true } else { return false } }()) }
            return .single(.int(b ? 1 : 0))
        case .int, .double, .currency, .percent:
            guard case .literal(let l) = value, let d = Double(l), d.isFinite else {
                throw wrong(field.type == .int ? "int" : "double", quoted: { if case .string = value { return true } else { return false } }())
            }
            return .single(field.type == .int && d.rounded() == d && abs(d) < 1e15 ? .int(Int64(d)) : .double(d))
        case .date:
            switch value {
            case .literal(let l):
                guard l.count == 10, let date = SalesforceDate.parse(l) else { throw wrong("date", quoted: false) }
                return .single(.text(SalesforceDate.dateString(date)))
            case .dateLiteral(let name, let n):
                let (start, end) = try DateLiterals.range(name, n, now: now)
                return .range(.text(SalesforceDate.dateString(start)), .text(SalesforceDate.dateString(end)))
            default: throw wrong("date", quoted: { if case .string = value { return true } else { return false } }())
            }
        case .datetime:
            switch value {
            case .literal(let l):
                guard l.count > 10, let date = SalesforceDate.parse(l) else { throw wrong("dateTime", quoted: false) }
                return .single(.text(SalesforceDate.string(date)))
            case .dateLiteral(let name, let n):
                let (start, end) = try DateLiterals.range(name, n, now: now)
                return .range(.text(SalesforceDate.string(start)), .text(SalesforceDate.string(end)))
            default: throw wrong("dateTime", quoted: { if case .string = value { return true } else { return false } }())
            }
        }
    }
}

/// SOQL date literals as half-open UTC ranges [start, end). Weeks start on Sunday, as in the en_US locale.
enum DateLiterals {
    static func range(_ name: String, _ n: Int?, now: Date) throws -> (Date, Date) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        calendar.firstWeekday = 1
        let today = calendar.startOfDay(for: now)
        func day(_ d: Int, from: Date = today) -> Date { calendar.date(byAdding: .day, value: d, to: from)! }
        func start(of unit: Calendar.Component, _ offset: Int) -> Date {
            let interval = calendar.dateInterval(of: unit, for: now)!
            return calendar.date(byAdding: unit, value: offset, to: interval.start)!
        }
        func units(_ unit: Calendar.Component, _ offset: Int, count: Int = 1) -> (Date, Date) {
            let s = start(of: unit, offset)
            return (s, calendar.date(byAdding: unit, value: count, to: s)!)
        }
        guard (n ?? 0) >= 0, (n ?? 0) <= 100_000 else { throw SOQLParser.malformed("\(name):\(n ?? 0) is out of range") }
        switch name {
        case "YESTERDAY": return (day(-1), today)
        case "TODAY": return (today, day(1))
        case "TOMORROW": return (day(1), day(2))
        case "LAST_WEEK": return units(.weekOfYear, -1)
        case "THIS_WEEK": return units(.weekOfYear, 0)
        case "NEXT_WEEK": return units(.weekOfYear, 1)
        case "LAST_MONTH": return units(.month, -1)
        case "THIS_MONTH": return units(.month, 0)
        case "NEXT_MONTH": return units(.month, 1)
        case "LAST_YEAR": return units(.year, -1)
        case "THIS_YEAR": return units(.year, 0)
        case "NEXT_YEAR": return units(.year, 1)
        // LAST_N_DAYS:n starts n days ago and includes today, as the SOQL reference describes.
        case "LAST_90_DAYS": return (day(-90), day(1))
        case "NEXT_90_DAYS": return (day(1), day(91))
        case "LAST_N_DAYS": return (day(-(n ?? 0)), day(1))
        case "NEXT_N_DAYS": return (day(1), day((n ?? 0) + 1))
        case "N_DAYS_AGO": return (day(-(n ?? 0)), day(-(n ?? 0) + 1))
        case "LAST_N_WEEKS": return units(.weekOfYear, -(n ?? 0), count: n ?? 0)
        case "NEXT_N_WEEKS": return units(.weekOfYear, 1, count: n ?? 0)
        case "LAST_N_MONTHS": return units(.month, -(n ?? 0), count: n ?? 0)
        case "NEXT_N_MONTHS": return units(.month, 1, count: n ?? 0)
        default: throw SOQLParser.malformed("unknown date literal \(name)")
        }
    }
}
