import ArgumentParser
import Foundation
import MobileSync
import SmartStore

/// `records list|add|edit|delete --soup S`: local edits of any soup of the bundle's userstore.json,
/// sent at the next sync up. `contacts` is the sample's shorthand for `--soup contacts`.
struct Records: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Edit the records of any soup locally (sent at the next sync) and list them.", subcommands: [Add.self, Edit.self, Delete.self, List.self])

    @ParentCommand var app: MainApp

    struct Target: ParsableArguments {
        @Option(help: "The soup (one of the bundle's userstore.json).") var soup: String
    }

    struct Values: ParsableArguments {
        @Option(name: .customLong("set"), help: ArgumentHelp("A field's value as text: FIELD=VALUE (repeatable).", valueName: "FIELD=VALUE"))
        var set: [String] = []
        @Option(help: "Fields as a JSON object, for numbers, booleans and nulls, e.g. '{\"Billable__c\": true}'.") var json: String?

        var entry: SoupEntry {
            get throws {
                var e: SoupEntry = [:]
                if let json {
                    guard let object = JSON(text: json)?.objectValue else { throw ValidationError("--json must be a JSON object, e.g. '{\"Quantity__c\": 2}'") }
                    e = object
                }
                for item in set {
                    guard let eq = item.firstIndex(of: "="), eq != item.startIndex else { throw ValidationError("--set \(item): expected FIELD=VALUE") }
                    e[String(item[..<eq])] = .string(String(item[item.index(after: eq)...]))
                }
                return e
            }
        }
    }

    static func manager(_ app: MainApp, soup: String) async throws -> SyncManager {
        let context = try await app.start()
        let manager = try await context.sdk.syncManager(for: try context.currentAccount())
        guard try manager.store.soupExists(soup) else {
            throw Failure("there is no soup \(soup) in this app's store; its userstore.json has \(try manager.store.allSoupNames().filter { !$0.hasPrefix("syncs_") }.joined(separator: ", "))")
        }
        return manager
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a record locally; prints its local id.")
        @ParentCommand var records: Records
        @OptionGroup var target: Target
        @OptionGroup var values: Values
        func run() async throws {
            let saved = try await Records.manager(records.app, soup: target.soup).createLocally(try values.entry, soupName: target.soup)
            print(saved["Id"]?.stringValue ?? "")
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a record locally.")
        @ParentCommand var records: Records
        @OptionGroup var target: Target
        @Argument(help: "The record's Id (or local id).") var id: String
        @OptionGroup var values: Values
        func run() async throws {
            try await Records.manager(records.app, soup: target.soup).updateLocally(id: id, changes: try values.entry, soupName: target.soup)
            print("edited \(id)")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a record locally.")
        @ParentCommand var records: Records
        @OptionGroup var target: Target
        @Argument(help: "The record's Id (or local id).") var id: String
        func run() async throws {
            try await Records.manager(records.app, soup: target.soup).deleteLocally(id: id, soupName: target.soup)
            print("deleted \(id)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a soup's records, local flags included (newest first).")
        @ParentCommand var records: Records
        @OptionGroup var target: Target
        @Flag(help: "Print a JSON array of entries.") var json = false
        func run() async throws {
            let store = try await Records.manager(records.app, soup: target.soup).store
            let entries = try store.query(.all(soup: target.soup, orderPath: "_soupLastModifiedDate", order: .descending, pageSize: 1_000_000)).compactMap(\.objectValue)
            if json {
                print(JSON.array(entries.map(JSON.object)).text)
                return
            }
            for e in entries {
                let flag = e["__local__"]?.boolValue == true ? "*" : " "
                let shown = e.filter { !$0.key.hasPrefix("_") && $0.key != "Id" && $0.key != "attributes" }.sorted { $0.key < $1.key }
                    .compactMap { k, v in v.stringValue.map { "\(k)=\($0)" } }.joined(separator: "  ")
                print("\(flag) \(e["Id"]?.stringValue ?? "")  \(shown)\(e["__last_error__"]?.stringValue.map { "  (\($0))" } ?? "")")
            }
        }
    }
}
