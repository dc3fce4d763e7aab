import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import Diagnostics

/// `msdk-sim import --package` without building (the build is scripts/integration/run-your-code.sh's):
/// the targets, the rewritten imports, the UI files set aside, the manifest, and bad input.
final class ProjectPackageTests: XCTestCase {
    var work: URL!

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("package-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("Fixtures/Recents"), to: work.appendingPathComponent("Recents"))
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    var project: URL { work.appendingPathComponent("Recents/Recents.xcodeproj") }

    func options(_ package: URL) -> ProjectPackage.Options {
        .init(importOptions: .init(xcodeproj: project, out: URL(fileURLWithPath: "/unused")), bundlesOut: nil, package: package,
              appGroupSim: TestSupport.packageRoot, build: false)
    }

    func testThePackageHasOneTargetPerAppOrExtensionWithItsSwiftSources() throws {
        let dir = work.appendingPathComponent("pkg")
        let result = try ProjectPackage.run(options(dir))
        XCTAssertEqual(result.targets.map(\.module), ["Recents", "RecentsWidget"])
        let app = result.targets[0], widget = result.targets[1]
        XCTAssertEqual(app.sources, ["Recents/ContactsData.swift", "Recents/DeepLink.swift", "Recents/AppSetup.swift", "Shared/RecentContacts.swift"])
        XCTAssertEqual(app.ui.map(\.file), ["Recents/AppDelegate.swift", "Recents/SceneDelegate.swift", "Recents/ContactDetailView.swift", "Recents/ContactColors.swift"],
                       "ContactColors.swift extends UIColor without being a view: naming a UIKit type makes it UI (issue 37)")
        XCTAssertEqual(app.ui.last?.reason, "it names UIKit's UIColor")
        XCTAssertEqual(app.ui.first?.reason, "AppDelegate is an entry point (@main)")
        XCTAssertEqual(widget.sources, ["RecentsWidget/Provider.swift", "Shared/RecentContacts.swift"])
        XCTAssertEqual(widget.ui.map(\.file), ["RecentsWidget/RecentsWidget.swift"])
        XCTAssertEqual(widget.changes, ["RecentsWidget/Provider.swift:8: import SalesforceSDKCommon.SFSDKDatasharingHelper → import SalesforceSDKCommon",
                                        "Shared/RecentContacts.swift:8: import UIKit.UIApplication → removed"])
        // Lines keep their numbers: the removed import is a comment on its own line.
        let ported = try String(contentsOf: dir.appendingPathComponent("Sources/RecentsWidget/Shared/RecentContacts.swift"), encoding: .utf8)
        let original = try String(contentsOf: work.appendingPathComponent("Recents/Shared/RecentContacts.swift"), encoding: .utf8)
        XCTAssertEqual(ported.split(separator: "\n", omittingEmptySubsequences: false).count, original.split(separator: "\n", omittingEmptySubsequences: false).count)
        XCTAssertTrue(ported.contains("// import UIKit.UIApplication (removed by msdk-sim import: no UIKit on Linux)"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("UI/Recents/Recents/AppDelegate.swift").path))
        let manifest = try String(contentsOf: dir.appendingPathComponent("Package.swift"), encoding: .utf8)
        XCTAssertTrue(manifest.contains(".package(name: \"AppGroupSim\", path: \"\(TestSupport.packageRoot.path)\")"), manifest)
        XCTAssertTrue(manifest.contains(".target(name: \"RecentsWidget\", dependencies: sdk, swiftSettings: settings)"), manifest)
        XCTAssertTrue(manifest.contains(".swiftLanguageMode(.v5)"), "SWIFT_VERSION 5.0: \(manifest)")
        let test = try String(contentsOf: dir.appendingPathComponent("Tests/SetupTests/SetupTests.swift"), encoding: .utf8)
        XCTAssertTrue(test.contains("try device.run(as: RecentsWidget.AppGroupSimImport.bundle)"), test)
        let bundle = try String(contentsOf: dir.appendingPathComponent("Sources/Recents/AppGroupSimImport.swift"), encoding: .utf8)
        XCTAssertTrue(bundle.contains("public static let appGroup: String? = \"group.com.acme.recents\""), bundle)
        XCTAssertTrue(bundle.contains(dir.appendingPathComponent("Bundles/Recents.app").path), "the bundles are inside the package: \(bundle)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("Bundles/Recents.app/PlugIns/RecentsWidget.appex/Info.plist").path))
    }

    func testASecondRunIntoTheSameDirectoryIsRefusedAndNothingIsDeleted() throws {
        let dir = work.appendingPathComponent("pkg")
        _ = try ProjectPackage.run(options(dir))
        let before = try FileManager.default.subpathsOfDirectory(atPath: dir.path).sorted()
        XCTAssertThrowsError(try ProjectPackage.run(options(dir))) { XCTAssertTrue("\($0)".contains("exists and is not an empty directory"), "\($0)") }
        XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: dir.path).sorted(), before)
    }

    func testASourceThatDoesNotParseWritesNothing() throws {
        let file = work.appendingPathComponent("Recents/Recents/DeepLink.swift")
        try (try String(contentsOf: file, encoding: .utf8)).replacingOccurrences(of: "init?(url: URL) {", with: "init?(url: URL {").write(to: file, atomically: true, encoding: .utf8)
        let dir = work.appendingPathComponent("pkg")
        XCTAssertThrowsError(try ProjectPackage.run(options(dir))) { error in
            XCTAssertTrue("\(error)".contains("Recents/DeepLink.swift:13:"), "\(error)")
            XCTAssertTrue("\(error)".contains("nothing was written"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.path), ["Recents"])
    }

    func testASourceOutsideTheProjectIsRefusedUnlessAllowed() throws {
        let outside = work.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let file = work.appendingPathComponent("Recents/Recents/DeepLink.swift")
        try FileManager.default.moveItem(at: file, to: outside.appendingPathComponent("DeepLink.swift"))
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: outside.appendingPathComponent("DeepLink.swift"))
        let dir = work.appendingPathComponent("pkg")
        XCTAssertThrowsError(try ProjectPackage.run(options(dir))) { error in
            XCTAssertTrue("\(error)".contains("(Compile Sources of target Recents) is outside the project's folder"), "\(error)")
            XCTAssertTrue("\(error)".contains("nothing was written"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path))
        var allowed = options(dir)
        allowed.importOptions.allowOutside = true
        let result = try ProjectPackage.run(allowed)
        XCTAssertTrue(result.targets[0].sources.contains("Recents/DeepLink.swift"))
    }

    func testEveryFileTheCompilerNamesIsLeftOutAtOnceWithItsFirstError() {
        let reports = [ProjectPackage.TargetReport(target: "Recents", module: "Recents", bundle: "", sources: ["Shared/RecentContacts.swift", "Recents/A.swift", "Recents/B.swift"])]
        let output = """
            [8/39] Compiling Recents RecentContacts.swift
            error: emit-module command failed with exit code 1 (use -v to see invocation)
            /p/pkg/Sources/Other/X.swift:1:1: error: not ours
            /p/pkg/Sources/Recents/Shared/RecentContacts.swift:44:32: error: cannot find 'UIColor' in scope
            /p/pkg/Sources/Recents/Shared/RecentContacts.swift:45:32: error: cannot find 'UIFont' in scope
            /p/pkg/Sources/Recents/Recents/A.swift:3:1: error: cannot find 'X' in scope
            """
        let found = ProjectPackage.fileErrors(output, package: URL(fileURLWithPath: "/p/pkg"), reports: reports)
        XCTAssertEqual(found.map(\.file), ["Shared/RecentContacts.swift", "Recents/A.swift"], "each file once, B.swift compiled")
        XCTAssertEqual(found.first?.module, "Recents")
        XCTAssertEqual(found.first?.error, "Shared/RecentContacts.swift:44: cannot find 'UIColor' in scope")
    }

    /// The project's own files are never written: a source reached by `../` out of the folder and back in, with an
    /// absolute --xcodeproj, was rewritten in place (its imports commented out) before paths were made canonical.
    func testASourceThatClimbsOutAndBackInIsTheProjectsFileAndTheProjectIsNeverWritten() throws {
        let pbx = project.appendingPathComponent("project.pbxproj")
        // Up to / (more `..` than any folder is deep), then down the absolute path to the project again.
        let climb = String(repeating: "../", count: 40) + work.appendingPathComponent("Recents").path.dropFirst()
        let text = try String(contentsOf: pbx, encoding: .utf8)
        let original = "path = RecentContacts.swift;"
        XCTAssertTrue(text.contains(original))
        try text.replacingOccurrences(of: original, with: "path = \"\(climb)/Shared/RecentContacts.swift\";").write(to: pbx, atomically: true, encoding: .utf8)
        let before = try TestSupport.treeHash(work.appendingPathComponent("Recents"))
        let dir = work.appendingPathComponent("out/a/b/pkg")
        let result = try ProjectPackage.run(options(dir))
        XCTAssertEqual(try TestSupport.treeHash(work.appendingPathComponent("Recents")), before, "the project changed")
        XCTAssertTrue(result.targets[1].sources.contains("Shared/RecentContacts.swift"), "\(result.targets[1].sources)")
        let written = try FileManager.default.subpathsOfDirectory(atPath: dir.path)
        XCTAssertTrue(written.contains("Sources/RecentsWidget/Shared/RecentContacts.swift"), "\(written)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.path).sorted(), ["Recents", "out"], "nothing beside the package")
    }

    func testAFileOfTheProjectNamedLikeAGeneratedOneStaysTheDevelopers() throws {
        let mine = work.appendingPathComponent("Recents/Recents/DeepLink.swift")
        let renamed = work.appendingPathComponent("Recents/Recents/AppGroupSimImport.swift")
        try FileManager.default.moveItem(at: mine, to: renamed)
        let pbx = project.appendingPathComponent("project.pbxproj")
        try (try String(contentsOf: pbx, encoding: .utf8)).replacingOccurrences(of: "DeepLink.swift", with: "AppGroupSimImport.swift")
            .write(to: pbx, atomically: true, encoding: .utf8)
        let dir = work.appendingPathComponent("pkg")
        let result = try ProjectPackage.run(options(dir))
        XCTAssertTrue(result.targets[0].sources.contains("Recents/AppGroupSimImport.swift"))
        let theirs = try String(contentsOf: dir.appendingPathComponent("Sources/Recents/Recents/AppGroupSimImport.swift"), encoding: .utf8)
        XCTAssertEqual(theirs, try String(contentsOf: renamed, encoding: .utf8), "the developer's file is kept as it is")
        let generated = try String(contentsOf: dir.appendingPathComponent("Sources/Recents/AppGroupSimImport2.swift"), encoding: .utf8)
        XCTAssertTrue(generated.contains("public enum AppGroupSimImport"), generated)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("Sources/Recents/AppGroupSimImport.swift").path))
    }

    /// SwiftPM answered "Build complete!" for a second package in a shared scratch path from the first one's
    /// cached plan (seen: 1 s, nothing compiled): a kept source without a newer object file is not built.
    func testBuiltIsSaidOnlyWhenEveryKeptSourceWasCompiled() throws {
        let pkg = work.appendingPathComponent("p"), scratch = work.appendingPathComponent("scratch")
        let reports = [ProjectPackage.TargetReport(target: "Recents", module: "Recents", bundle: "", sources: ["Recents/A.swift"])]
        try ProjectPackage.write("let a = 1", to: pkg.appendingPathComponent("Sources/Recents/Recents/A.swift"))
        let object = scratch.appendingPathComponent("debug/Recents.build/A.swift.o")
        XCTAssertNotNil(ProjectPackage.unbuilt(reports, package: pkg, scratch: scratch), "no object at all")
        try FileManager.default.createDirectory(at: object.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data().write(to: object)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: object.path)
        let stale = try XCTUnwrap(ProjectPackage.unbuilt(reports, package: pkg, scratch: scratch), "an object older than the source")
        XCTAssertTrue(stale.contains("Recents/Recents/A.swift was not compiled"), stale)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: object.path)
        XCTAssertNil(ProjectPackage.unbuilt(reports, package: pkg, scratch: scratch))
    }

    func testTheStagedPackageIsWrittenOnlyWithNewFilesAndNeverThroughDotDot() throws {
        let dir = work.appendingPathComponent("w")
        try ProjectPackage.write("a", to: dir.appendingPathComponent("Sources/M/a.swift"))
        XCTAssertThrowsError(try ProjectPackage.write("b", to: dir.appendingPathComponent("Sources/M/a.swift")), "never over a file")
        XCTAssertThrowsError(try ProjectPackage.write("c", to: dir.appendingPathComponent("Sources/M/../../../escaped.swift")), "never through ..")
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("escaped.swift").path))
        XCTAssertEqual(try String(contentsOf: dir.appendingPathComponent("Sources/M/a.swift"), encoding: .utf8), "a")
    }
}
