import AppGroup
import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import Diagnostics

/// `msdk-sim import` and `doctor --xcodeproj` on copies of the field-service project fixture.
final class ProjectImportTests: XCTestCase {
    var work: URL!
    var project: URL { work.appendingPathComponent("FieldService/FieldService.xcodeproj") }
    var pbxproj: URL { project.appendingPathComponent("project.pbxproj") }

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("Fixtures/FieldService"), to: work.appendingPathComponent("FieldService"))
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    func edit(_ file: URL, _ from: String, _ to: String) throws {
        let text = try String(contentsOf: file, encoding: .utf8)
        XCTAssertTrue(text.contains(from), "\(from) not in \(file.lastPathComponent)")
        try text.replacingOccurrences(of: from, with: to).write(to: file, atomically: true, encoding: .utf8)
    }

    func testImportWritesBundlesTheSimulatorRunsAndAReport() async throws {
        let out = work.appendingPathComponent("out")
        let result = try ProjectImport.run(.init(xcodeproj: project, configuration: "Release", out: out))
        XCTAssertEqual(result.apps.map(\.bundleIdentifier), ["com.acme.FieldService"])
        XCTAssertEqual(result.apps[0].extensions.map(\.bundleIdentifier), ["com.acme.FieldService.DueToday"])
        XCTAssertEqual(result.apps[0].consumerKey, "3MVG9Acme.FieldService")
        XCTAssertEqual(result.apps[0].appGroup, "group.com.acme.fieldservice")
        let app = try AppBundle(at: out.appendingPathComponent("Field Service.app"))
        XCTAssertEqual(app.entitlements.raw["keychain-access-groups"], .array([.string("FSTEAM0001.com.acme.fieldservice.shared")]))
        XCTAssertEqual(app.info["CFBundleExecutable"]?.stringValue, "Field Service")
        let widget = try app.plugIns()[0]
        XCTAssertEqual(widget.bundleIdentifier, "com.acme.FieldService.DueToday")
        XCTAssertEqual(widget.info["CFBundlePackageType"]?.stringValue, "XPC!")
        for file in ["bootconfig.plist", "userstore.json", "usersyncs.json"] { XCTAssertTrue(FileManager.default.fileExists(atPath: app.resourceURL(file).path), file) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: widget.resourceURL("WidgetConfig.plist").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: app.resourceURL("AppDelegate.swift").path), "sources are never copied")
        XCTAssertEqual(try AppGroupConfig.load(from: widget)?.appGroupName, "group.com.acme.fieldservice")
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: result.report)) as? [String: Any])
        let files = try XCTUnwrap(report["files"] as? [[String: Any]])
        let info = try XCTUnwrap(files.first { ($0["file"] as? String)?.hasSuffix("Field Service.app/Info.plist") == true }?["from"] as? [String: String])
        XCTAssertEqual(info["CFBundleIdentifier"], "FieldService/Info.plist, expanded with PRODUCT_BUNDLE_IDENTIFIER (target FieldService, Release)")
        XCTAssertTrue(result.notes.joined().contains("confirm that the app sets appGroupName"))
        let findings = await Doctor.examine(app: app.url.path)
        XCTAssertEqual(findings, [], "the imported bundles pass the doctor")
    }

    /// GENERATE_INFOPLIST_FILE = YES: the INFOPLIST_KEY_* settings and the keys Xcode always writes join
    /// the file; where both set a key the file's value is kept and the report says so. Without a file,
    /// the Info.plist is the generated one alone.
    func testAGeneratedInfoPlistMergesInfoPlistKeySettingsWithTheFile() throws {
        try edit(pbxproj, """
                INFOPLIST_FILE = "$(SRCROOT)/FieldService/Info.plist";
                PRODUCT_BUNDLE_IDENTIFIER = "$(BUNDLE_PREFIX).$(TARGET_NAME:rfc1034identifier)";
                PRODUCT_NAME = "Field Service";
                SWIFT_VERSION = 5.0;
                TARGETED_DEVICE_FAMILY = "1,2";
            };
            name = Release;
""".replacingOccurrences(of: "    ", with: "\t"), """
                GENERATE_INFOPLIST_FILE = YES;
                INFOPLIST_FILE = "$(SRCROOT)/FieldService/Info.plist";
                INFOPLIST_KEY_CFBundleDisplayName = "FS $(CONFIGURATION)";
                INFOPLIST_KEY_LSApplicationCategoryType = "public.app-category.business";
                INFOPLIST_KEY_UIApplicationSupportsIndirectInputEvents = YES;
                CURRENT_PROJECT_VERSION = 42;
                PRODUCT_BUNDLE_IDENTIFIER = "$(BUNDLE_PREFIX).$(TARGET_NAME:rfc1034identifier)";
                PRODUCT_NAME = "Field Service";
                SWIFT_VERSION = 5.0;
                TARGETED_DEVICE_FAMILY = "1,2";
            };
            name = Release;
""".replacingOccurrences(of: "    ", with: "\t"))
        let out = work.appendingPathComponent("out")
        let result = try ProjectImport.run(.init(xcodeproj: project, configuration: "Release", out: out))
        let app = try AppBundle(at: out.appendingPathComponent("Field Service.app"))
        XCTAssertEqual(app.info["LSApplicationCategoryType"]?.stringValue, "public.app-category.business", "a generated key the file lacks")
        XCTAssertEqual(app.info["UIApplicationSupportsIndirectInputEvents"], .bool(true), "YES is a boolean, as Xcode writes it")
        XCTAssertEqual(app.info["CFBundleVersion"]?.stringValue, "42", "CURRENT_PROJECT_VERSION")
        XCTAssertEqual(app.info["CFBundleShortVersionString"]?.stringValue, "1.4.0", "the file's version is kept")
        XCTAssertEqual(app.info["CFBundleDisplayName"]?.stringValue, "Field Service", "the file's display name is kept")
        XCTAssertEqual(app.info["CFBundleURLTypes"]?.arrayValue?.count, 1, "the file's URL types are there")
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: result.report)) as? [String: Any])
        let files = try XCTUnwrap(report["files"] as? [[String: Any]])
        let from = try XCTUnwrap(files.first { ($0["file"] as? String)?.hasSuffix("Field Service.app/Info.plist") == true }?["from"] as? [String: String])
        XCTAssertEqual(from["CFBundleVersion"], "CURRENT_PROJECT_VERSION (target FieldService, Release)")
        XCTAssertTrue(from["CFBundleDisplayName"]?.contains("INFOPLIST_KEY_CFBundleDisplayName (target FieldService, Release) also sets it, to FS Release: the file's value is kept") == true,
                      from["CFBundleDisplayName"] ?? "")

        // No file at all: the generated Info.plist alone.
        try edit(pbxproj, "\t\t\t\tINFOPLIST_FILE = \"$(SRCROOT)/FieldService/Info.plist\";\n\t\t\t\tINFOPLIST_KEY_CFBundleDisplayName", "\t\t\t\tINFOPLIST_KEY_CFBundleDisplayName")
        let out2 = work.appendingPathComponent("out2")
        _ = try ProjectImport.run(.init(xcodeproj: project, configuration: "Release", out: out2))
        let generated = try AppBundle(at: out2.appendingPathComponent("Field Service.app"))
        XCTAssertEqual(generated.info["CFBundleDisplayName"]?.stringValue, "FS Release")
        XCTAssertEqual(generated.info["CFBundleExecutable"]?.stringValue, "Field Service")
        XCTAssertEqual(generated.info["CFBundlePackageType"]?.stringValue, "APPL")
        XCTAssertEqual(generated.bundleIdentifier, "com.acme.FieldService")
    }

    func assertNothingWritten(_ out: URL, file: StaticString = #filePath, line: UInt = #line) {
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: work.path))?.filter { !["FieldService", "existing", "outside"].contains($0) } ?? []
        XCTAssertEqual(leftovers, [], "nothing may be written", file: file, line: line)
    }

    func testBadInputIsOneClearErrorAndNothingIsWritten() throws {
        let out = work.appendingPathComponent("out")
        // An output directory that is not empty.
        let existing = work.appendingPathComponent("existing")
        try FileManager.default.createDirectory(at: existing, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: existing.appendingPathComponent("keep.txt"))
        XCTAssertThrowsError(try ProjectImport.run(.init(xcodeproj: project, out: existing))) { XCTAssertTrue("\($0)".contains("is not empty")) }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: existing.path), ["keep.txt"])
        // A file the import reads that is missing.
        try FileManager.default.removeItem(at: work.appendingPathComponent("FieldService/DueToday/Info.plist"))
        XCTAssertThrowsError(try ProjectImport.run(.init(xcodeproj: project, out: out))) {
            XCTAssertTrue("\($0)".contains("DueToday/Info.plist does not exist (INFOPLIST_FILE of target DueToday)"), "\($0)")
        }
        assertNothingWritten(out)
        // No team: never guessed; --team is an explicit choice.
        try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("Fixtures/FieldService/DueToday/Info.plist"), to: work.appendingPathComponent("FieldService/DueToday/Info.plist"))
        try edit(pbxproj, "DEVELOPMENT_TEAM = FSTEAM0001;", "")
        XCTAssertThrowsError(try ProjectImport.run(.init(xcodeproj: project, out: out))) { XCTAssertTrue("\($0)".contains("no DEVELOPMENT_TEAM in Debug"), "\($0)") }
        assertNothingWritten(out)
        XCTAssertNoThrow(try ProjectImport.run(.init(xcodeproj: project, out: out, team: "OTHER00001")))
        try FileManager.default.removeItem(at: out)
        // A corrupt project file.
        try edit(pbxproj, "isa = PBXNativeTarget;\n\t\t\tbuildConfigurationList = A80000000000000000000003", "isa = PBXNativeTarget\n\t\t\tbuildConfigurationList = A80000000000000000000003")
        XCTAssertThrowsError(try ProjectImport.run(.init(xcodeproj: project, out: out))) { XCTAssertTrue("\($0)".contains("project.pbxproj:"), "\($0)") }
        assertNothingWritten(out)
    }

    // MARK: Issue 25: import writes only inside --out, from inside the project

    /// An --out that is a file, a link or a folder with files is refused, and nothing is deleted.
    func testAnOutThatIsAFileALinkOrNotEmptyIsRefusedAndNothingIsDeleted() throws {
        let file = work.appendingPathComponent("precious.txt")
        try Data("keep me".utf8).write(to: file)
        XCTAssertThrowsError(try ProjectImport.run(.init(xcodeproj: project, out: file))) { XCTAssertTrue("\($0)".contains("is not a directory"), "\($0)") }
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "keep me")
        let target = work.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        let link = work.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        XCTAssertThrowsError(try ProjectImport.run(.init(xcodeproj: project, out: link))) { XCTAssertTrue("\($0)".contains("is not a directory"), "\($0)") }
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link.path), target.path)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target.path), [])
        // An empty directory is used, and a second run into it refuses.
        XCTAssertNoThrow(try ProjectImport.run(.init(xcodeproj: project, out: target)))
        XCTAssertThrowsError(try ProjectImport.run(.init(xcodeproj: project, out: target))) { XCTAssertTrue("\($0)".contains("is not empty"), "\($0)") }
    }

    /// Product names and bundle ids name folders of the import (and of the device): '/' and '..' are refused.
    func testProductNamesAndBundleIdsWithSlashesOrDotDotAreRefused() throws {
        let out = work.appendingPathComponent("out")
        for (from, to, what) in [
            ("PRODUCT_NAME = \"Field Service\";", "PRODUCT_NAME = \"../../escaped\";", "PRODUCT_NAME"),
            ("PRODUCT_NAME = \"Field Service\";", "PRODUCT_NAME = \"a/b\";", "PRODUCT_NAME"),
            ("PRODUCT_BUNDLE_IDENTIFIER = \"${BUNDLE_PREFIX}.FieldService.DueToday\";", "PRODUCT_BUNDLE_IDENTIFIER = \"../../../x\";", "PRODUCT_BUNDLE_IDENTIFIER"),
        ] {
            let original = try String(contentsOf: pbxproj, encoding: .utf8)
            try edit(pbxproj, from, to)
            XCTAssertThrowsError(try ProjectImport.run(.init(xcodeproj: project, out: out))) {
                XCTAssertTrue("\($0)".contains(what) && "\($0)".contains("nothing was written"), "\($0)")
            }
            assertNothingWritten(out)
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("escaped.app").path))
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.deletingLastPathComponent().appendingPathComponent("escaped.app").path))
            try original.write(to: pbxproj, atomically: true, encoding: .utf8)
        }
    }

    /// Files from outside the project's folder (an absolute path, a link out) are refused, or copied with
    /// --allow-outside and named; links are copied as their content.
    func testFilesFromOutsideTheProjectAreRefusedUnlessAllowedAndLinksAreCopiedAsContent() throws {
        let out = work.appendingPathComponent("out")
        let outside = work.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let fieldService = work.appendingPathComponent("FieldService/FieldService")
        // A resource that is a link out of the project.
        try FileManager.default.moveItem(at: fieldService.appendingPathComponent("bootconfig.plist"), to: outside.appendingPathComponent("bootconfig.plist"))
        try FileManager.default.createSymbolicLink(at: fieldService.appendingPathComponent("bootconfig.plist"), withDestinationURL: outside.appendingPathComponent("bootconfig.plist"))
        XCTAssertThrowsError(try ProjectImport.run(.init(xcodeproj: project, out: out))) {
            XCTAssertTrue("\($0)".contains("outside the project's folder") && "\($0)".contains("resolves to"), "\($0)")
        }
        assertNothingWritten(out)
        let allowed = try ProjectImport.run(.init(xcodeproj: project, out: out, allowOutside: true))
        XCTAssertTrue(allowed.notes.contains { $0.contains("bootconfig.plist") && $0.contains("--allow-outside") }, "\(allowed.notes)")
        let copied = out.appendingPathComponent("Field Service.app/bootconfig.plist")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: copied.path)[.type] as? FileAttributeType, .typeRegular, "copied as its content")
        XCTAssertEqual(try Data(contentsOf: copied), try Data(contentsOf: outside.appendingPathComponent("bootconfig.plist")))
        try FileManager.default.removeItem(at: out)
        // An absolute INFOPLIST_FILE outside.
        try FileManager.default.removeItem(at: fieldService.appendingPathComponent("bootconfig.plist"))
        try FileManager.default.moveItem(at: outside.appendingPathComponent("bootconfig.plist"), to: fieldService.appendingPathComponent("bootconfig.plist"))
        try FileManager.default.copyItem(at: fieldService.appendingPathComponent("Info.plist"), to: outside.appendingPathComponent("Info.plist"))
        try edit(pbxproj, "INFOPLIST_FILE = \"$(SRCROOT)/FieldService/Info.plist\";", "INFOPLIST_FILE = \"\(outside.path)/Info.plist\";")
        XCTAssertThrowsError(try ProjectImport.run(.init(xcodeproj: project, out: out))) { XCTAssertTrue("\($0)".contains("INFOPLIST_FILE of target FieldService"), "\($0)") }
        assertNothingWritten(out)
        // A link that stays inside the project is fine, and copied as content too.
        try edit(pbxproj, "INFOPLIST_FILE = \"\(outside.path)/Info.plist\";", "INFOPLIST_FILE = \"$(SRCROOT)/FieldService/Info.plist\";")
        let userstore = fieldService.appendingPathComponent("userstore.json")
        try FileManager.default.moveItem(at: userstore, to: fieldService.appendingPathComponent("userstore.real.json"))
        try FileManager.default.createSymbolicLink(atPath: userstore.path, withDestinationPath: "userstore.real.json")
        XCTAssertNoThrow(try ProjectImport.run(.init(xcodeproj: project, out: out)))
        let store = out.appendingPathComponent("Field Service.app/userstore.json")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: store.path)[.type] as? FileAttributeType, .typeRegular)
    }

    /// import-report.json names every written file where it is, the extension's inside its app's PlugIns.
    func testTheReportNamesEachFileWhereItIs() throws {
        let out = work.appendingPathComponent("out")
        let result = try ProjectImport.run(.init(xcodeproj: project, out: out))
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: result.report)) as? [String: Any])
        let files = try XCTUnwrap(report["files"] as? [[String: Any]]).compactMap { $0["file"] as? String }
        XCTAssertTrue(files.contains(out.appendingPathComponent("Field Service.app/PlugIns/DueToday.appex/Info.plist").path), "\(files)")
        for file in files { XCTAssertTrue(FileManager.default.fileExists(atPath: file), file) }
    }

    func ids(_ findings: [Finding]) -> [String] { findings.map(\.id).sorted() }

    func testTheProjectDoctorSpeaksInTheProjectsTerms() async throws {
        let clean = await ProjectDoctor.examine(xcodeproj: project, configuration: "Debug")
        XCTAssertEqual(clean, [])
        // Release signs the widget with another group; an old entitlements file lies unused; the widget's
        // Info.plist lost its extension point; its bundle id left the app's.
        let release = work.appendingPathComponent("FieldService/DueToday/DueToday-Release.entitlements")
        try String(contentsOf: work.appendingPathComponent("FieldService/DueToday/DueToday.entitlements"), encoding: .utf8)
            .replacingOccurrences(of: "group.com.acme.fieldservice", with: "group.com.acme.fieldservice.release").write(to: release, atomically: true, encoding: .utf8)
        try edit(pbxproj, "CODE_SIGN_ENTITLEMENTS = DueToday/DueToday.entitlements;\n\t\t\t\tINFOPLIST_FILE = DueToday/Info.plist;\n\t\t\t\tPRODUCT_BUNDLE_IDENTIFIER = \"${BUNDLE_PREFIX}.FieldService.DueToday\";\n\t\t\t\tPRODUCT_NAME = \"$(TARGET_NAME)\";\n\t\t\t\tSKIP_INSTALL = YES;\n\t\t\t};\n\t\t\tname = Release;",
                 "CODE_SIGN_ENTITLEMENTS = \"DueToday/DueToday-Release.entitlements\";\n\t\t\t\tINFOPLIST_FILE = DueToday/Info.plist;\n\t\t\t\tPRODUCT_BUNDLE_IDENTIFIER = \"${BUNDLE_PREFIX}.FieldService.DueToday\";\n\t\t\t\tPRODUCT_NAME = \"$(TARGET_NAME)\";\n\t\t\t\tSKIP_INSTALL = YES;\n\t\t\t};\n\t\t\tname = Release;")
        try Data(try Data(contentsOf: work.appendingPathComponent("FieldService/FieldService/FieldService.entitlements"))).write(to: work.appendingPathComponent("FieldService/FieldService/Old.entitlements"))
        let found = await ProjectDoctor.examine(xcodeproj: project, configuration: "Release")
        XCTAssertEqual(ids(found), ["app-group-entitlements-differ", "entitlements-differ-by-configuration", "entitlements-unreferenced"].sorted(), "\(found)")
        let differ = try XCTUnwrap(found.first { $0.id == "app-group-entitlements-differ" })
        XCTAssertTrue(differ.message.contains("target DueToday") && differ.fix.contains("DueToday/DueToday-Release.entitlements (CODE_SIGN_ENTITLEMENTS of target DueToday, Release)"), "\(differ)")
        XCTAssertTrue(found.contains { $0.id == "entitlements-unreferenced" && $0.message.hasPrefix("FieldService/Old.entitlements") })

        try edit(work.appendingPathComponent("FieldService/DueToday/Info.plist"), "<key>NSExtensionPointIdentifier</key>\n\t\t<string>com.apple.widgetkit-extension</string>", "")
        try edit(pbxproj, "PRODUCT_BUNDLE_IDENTIFIER = \"${BUNDLE_PREFIX}.FieldService.DueToday\";\n\t\t\t\tPRODUCT_NAME = \"$(TARGET_NAME)\";\n\t\t\t\tSKIP_INSTALL = YES;\n\t\t\t};\n\t\t\tname = Debug;",
                 "PRODUCT_BUNDLE_IDENTIFIER = com.acme.DueToday;\n\t\t\t\tPRODUCT_NAME = \"$(TARGET_NAME)\";\n\t\t\t\tSKIP_INSTALL = YES;\n\t\t\t};\n\t\t\tname = Debug;")
        let debug = await ProjectDoctor.examine(xcodeproj: project, configuration: "Debug")
        XCTAssertTrue(ids(debug).contains("extension-point-missing"), "\(debug)")
        XCTAssertTrue(ids(debug).contains("extension-bundle-id-prefix"), "\(debug)")

        // No team, and an extension no app embeds.
        try edit(pbxproj, "DEVELOPMENT_TEAM = FSTEAM0001;", "")
        try edit(pbxproj, "A10000000000000000000005 /* DueToday.appex in Embed Foundation Extensions */,\n", "")
        try edit(pbxproj, "A30000000000000000000002 /* PBXTargetDependency */,\n", "")
        let bare = await ProjectDoctor.examine(xcodeproj: project, configuration: "Debug")
        XCTAssertTrue(ids(bare).contains("no-team"), "\(bare)")
        XCTAssertTrue(ids(bare).contains("extension-not-embedded"), "\(bare)")
    }

    /// A binary property list damaged the way that crashes Foundation's reader (found by scripts/fuzz), as the
    /// widget's entitlements or Info.plist: `msdk-sim doctor` and `import` died of SIGSEGV. Now the import is
    /// one error naming the file, nothing written, and the doctor reports it as a finding.
    func testADamagedBinaryPlistInTheProjectIsNamedNotACrash() async throws {
        let crasher = try Data(contentsOf: TestSupport.packageRoot.appendingPathComponent("Tests/Fuzz/Plist/corpus/regression-binary-set-crashes-foundation"))
        for name in ["DueToday/DueToday.entitlements", "DueToday/Info.plist"] {
            let file = work.appendingPathComponent("FieldService/\(name)")
            let original = try Data(contentsOf: file)
            try crasher.write(to: file)
            let out = work.appendingPathComponent("out-\(UUID().uuidString)")
            XCTAssertThrowsError(try ProjectImport.run(.init(xcodeproj: project, out: out))) {
                XCTAssertTrue("\($0)".contains("\(name): is not a valid property list (a damaged binary property list ("), "\($0)")
            }
            assertNothingWritten(out)
            let found = await ProjectDoctor.examine(xcodeproj: project, configuration: "Debug")
            XCTAssertTrue(found.contains { $0.message.contains(name) && $0.message.contains("a damaged binary property list") }, "\(name): \(found)")
            try original.write(to: file)
        }
    }
}
