import ArgumentParser
import Foundation
import MobileApp

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

        func validate() throws {
            do { _ = try RecordEditor.values(json: json, set: set) } catch { throw ValidationError("\(error)") }
        }
    }

    static func editor(_ app: MainApp, _ target: Target) async throws -> RecordEditor {
        try await RecordEditor(try await app.start(), soup: target.soup)
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a record locally; prints its local id.")
        @ParentCommand var records: Records
        @OptionGroup var target: Target
        @OptionGroup var values: Values
        func run() async throws {
            let saved = try await Records.editor(records.app, target).add(try RecordEditor.values(json: values.json, set: values.set))
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
            try await Records.editor(records.app, target).edit(id: id, changes: try RecordEditor.values(json: values.json, set: values.set))
            print("edited \(id)")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a record locally.")
        @ParentCommand var records: Records
        @OptionGroup var target: Target
        @Argument(help: "The record's Id (or local id).") var id: String
        func run() async throws {
            try await Records.editor(records.app, target).delete(id: id)
            print("deleted \(id)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a soup's records, local flags included (newest first).")
        @ParentCommand var records: Records
        @OptionGroup var target: Target
        @Flag(help: "Print a JSON array of entries.") var json = false
        func run() async throws {
            let entries = try await Records.editor(records.app, target).list()
            if json { return print(RecordEditor.jsonText(entries)) }
            for e in entries { print(RecordEditor.line(e)) }
        }
    }
}
