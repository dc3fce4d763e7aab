import AppGroup
import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import Diagnostics

/// Doctor and import reading the code (issue 27): the field-service project fixture with its two sources
/// (AppDelegate, DueTodayWidget) written in, in Swift and in Objective-C, each finding provoked by one
/// broken source and gone once the source is fixed.
final class CodeDoctorTests: XCTestCase {
    var work: URL!
    var project: URL { work.appendingPathComponent("FieldService/FieldService.xcodeproj") }
    var appSource: URL { work.appendingPathComponent("FieldService/FieldService/AppDelegate.swift") }
    var widgetSource: URL { work.appendingPathComponent("FieldService/DueToday/DueTodayWidget.swift") }

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("code-doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("Fixtures/FieldService"), to: work.appendingPathComponent("FieldService"))
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    static let goodApp = """
        import UIKit
        import MobileSync

        let recentsKeyLabel = "com.acme.fieldservice.recents"

        class AppDelegate: UIResponder, UIApplicationDelegate {
            override init() {
                super.init()
                DataSharingHelper.shared.appGroupName = "group.com.acme.fieldservice"
                DataSharingHelper.shared.isAppGroupEnabled = true
                MobileSyncSDKManager.initializeSDK()
            }

            func userDidLogIn() {
                UserDefaults(suiteName: "group.com.acme.fieldservice")?.set(true, forKey: "userLoggedIn")
                _ = try? KeyGenerator.encryptionKey(for: recentsKeyLabel)
            }
        }
        """

    static let goodWidget = """
        import WidgetKit
        import SalesforceSDKCommon

        struct Provider {
            init() {
                DataSharingHelper.shared.appGroupName = "group.com.acme.fieldservice"
            }
            var loggedIn: Bool { UserDefaults(suiteName: "group.com.acme.fieldservice")?.bool(forKey: "userLoggedIn") ?? false }
            func key() throws -> Any { try KeyGenerator.encryptionKey(for: "com.acme.fieldservice.recents") }
        }
        """

    func write(app: String = goodApp, widget: String = goodWidget) throws {
        try app.write(to: appSource, atomically: true, encoding: .utf8)
        try widget.write(to: widgetSource, atomically: true, encoding: .utf8)
    }

    func findings() async -> [Finding] { await ProjectDoctor.examine(xcodeproj: project, configuration: "Debug") }

    func codeFindings() async -> [Finding] {
        let codeIDs: Set<String> = ["code-value-unreadable", "code-group-not-entitled", "app-group-set-after-sdk-init", "login-state-keys-differ",
            "login-state-written-elsewhere", "key-labels-differ", "code-unparseable", "extension-sets-app-group-flag", "app-group-names-differ",
            "config-missing", "app-groups-disabled"]
        return await findings().filter { codeIDs.contains($0.id) }
    }

    /// Breaks one source, expects exactly one finding of `id` whose message holds every part, then restores
    /// the good sources and expects it gone.
    func assertFinding(_ id: String, app: String = goodApp, widget: String = goodWidget, mentions parts: [String],
                       file: StaticString = #filePath, line: UInt = #line) async throws {
        try write(app: app, widget: widget)
        let broken = await codeFindings()
        let matching = broken.filter { $0.id == id }
        XCTAssertEqual(matching.count, 1, "\(id): \(broken.map { "\($0.id): \($0.message)" })", file: file, line: line)
        for part in parts { XCTAssertTrue(matching.first?.message.contains(part) == true, "\(part) not in \(matching.first?.message ?? "(none)")", file: file, line: line) }
        try write()
        let fixed = await codeFindings()
        XCTAssertEqual(fixed.map(\.id), [], "after the fix: \(fixed.map(\.message))", file: file, line: line)
    }

    func testTheGoodSourcesHaveNoFindingAndTheImportWritesWhatTheCodeSays() async throws {
        try write()
        let all = await findings()
        XCTAssertEqual(all.map(\.id), [], "\(all.map(\.message))")
        let out = work.appendingPathComponent("out")
        let result = try ProjectImport.run(.init(xcodeproj: project, out: out))
        let app = try AppBundle(at: result.apps[0].bundle)
        let config = try XCTUnwrap(try AppGroupConfig.load(from: app))
        XCTAssertEqual(config, AppGroupConfig(appGroupName: "group.com.acme.fieldservice", appGroupsEnabled: true, userLogInStatusKey: "userLoggedIn"))
        let widget = try XCTUnwrap(try AppGroupConfig.load(from: try AppBundle(at: result.apps[0].extensions[0].bundle)))
        XCTAssertEqual(widget, AppGroupConfig(appGroupName: "group.com.acme.fieldservice", appGroupsEnabled: nil, userLogInStatusKey: "userLoggedIn"))
        XCTAssertFalse(result.notes.contains { $0.contains("which was not read") || $0.contains("was not read") }, "\(result.notes)")
        let report = try String(contentsOf: result.report, encoding: .utf8)
        XCTAssertTrue(report.contains("FieldService/AppDelegate.swift:9"), report)
        XCTAssertTrue(report.contains("FieldService/AppDelegate.swift:15"), "the login-state key's line: \(report)")
    }

    func testAGroupTheCodeNamesButTheTargetIsNotEntitledTo() async throws {
        try await assertFinding("code-group-not-entitled", widget: Self.goodWidget.replacingOccurrences(of: "suiteName: \"group.com.acme.fieldservice\"", with: "suiteName: \"group.com.acme.fieldservices\""),
            mentions: ["DueToday/DueTodayWidget.swift:8", "target DueToday", "group.com.acme.fieldservices", "entitled to group.com.acme.fieldservice"])
    }

    func testTheExtensionSettingTheFlagIsReadFromCode() async throws {
        try await assertFinding("extension-sets-app-group-flag",
            widget: Self.goodWidget.replacingOccurrences(of: "init() {\n", with: "init() {\n        DataSharingHelper.shared.isAppGroupEnabled = true\n"),
            mentions: ["target DueToday sets isAppGroupEnabled (DueToday/DueTodayWidget.swift:6) to true"])
    }

    func testGroupNamesThatDifferInCode() async throws {
        try await assertFinding("app-group-names-differ",
            widget: Self.goodWidget.replacingOccurrences(of: "appGroupName = \"group.com.acme.fieldservice\"", with: "appGroupName = \"group.com.acme.fieldservice2\""),
            mentions: ["the app (FieldService/AppDelegate.swift:9) sets app group group.com.acme.fieldservice and target DueToday (DueToday/DueTodayWidget.swift:6) sets group.com.acme.fieldservice2"])
    }

    /// A Cyrillic е (U+0435) where the app has e: the two names look the same, so the finding escapes it.
    func testGroupNamesThatDifferByALookAlikeShowTheDifference() async throws {
        try await assertFinding("app-group-names-differ",
            widget: Self.goodWidget.replacingOccurrences(of: "appGroupName = \"group.com.acme.fieldservice\"", with: "appGroupName = \"group.com.acme.fi\u{0435}ldservice\""),
            mentions: ["sets app group group.com.acme.fieldservice and", "sets group.com.acme.fi\\u{435}ldservice"])
    }

    /// A group built at run time is unreadable: doctor never presents its first operand as the group, and
    /// never says the code is consistent.
    func testAGroupBuiltAtRunTimeIsUnreadableNotItsFirstOperand() async throws {
        for built in ["\"group.com.acme.fieldservice\" + suffix", "flag ? \"group.com.acme.fieldservice\" : \"group.b\""] {
            let widget = Self.goodWidget
                .replacingOccurrences(of: "appGroupName = \"group.com.acme.fieldservice\"", with: "appGroupName = \(built)")
                .replacingOccurrences(of: "struct Provider {", with: "let suffix = \".beta\"\nlet flag = true\nstruct Provider {")
            try write(widget: widget)
            let found = await codeFindings()
            XCTAssertEqual(found.filter { $0.id == "code-value-unreadable" }.count, 1, "\(built): \(found.map(\.message))")
            XCTAssertTrue(found.contains { $0.message.contains("is `\(built)`, built at run time") }, "\(found.map(\.message))")
        }
        try write(widget: Self.goodWidget.replacingOccurrences(of: "init() {\n", with: "init() {\n        DataSharingHelper.shared.appGroupName += \".beta\"\n"))
        let compound = await codeFindings()
        XCTAssertTrue(compound.contains { $0.id == "code-value-unreadable" && $0.message.contains("+= \".beta\"") }, "\(compound.map(\.message))")
    }

    func testAFileTooDeepToReadIsAFindingNotAVerdict() async throws {
        let deep = "let x = " + String(repeating: "(", count: 2_000) + "1" + String(repeating: ")", count: 2_000) + "\n"
        try write(widget: Self.goodWidget + "\n" + deep)
        let all = await findings()
        let notRead = all.filter { $0.id == "code-not-read" }
        XCTAssertEqual(notRead.count, 1, "\(all.map(\.message))")
        XCTAssertTrue(notRead.first?.message.contains("DueToday/DueTodayWidget.swift:11: not read: brackets, parentheses, braces and #if nested more than 200 deep") == true, "\(notRead)")
    }

    func testLoginStateKeysThatDiffer() async throws {
        try await assertFinding("login-state-keys-differ", widget: Self.goodWidget.replacingOccurrences(of: "forKey: \"userLoggedIn\"", with: "forKey: \"isLoggedIn\""),
            mentions: ["target DueToday reads the login state from key isLoggedIn (DueToday/DueTodayWidget.swift:8)", "target FieldService writes userLoggedIn (FieldService/AppDelegate.swift:15)"])
    }

    func testTheAppWritingTheLoginStateWhereTheExtensionDoesNotRead() async throws {
        try await assertFinding("login-state-written-elsewhere",
            app: Self.goodApp.replacingOccurrences(of: "UserDefaults(suiteName: \"group.com.acme.fieldservice\")?.set", with: "UserDefaults.standard.set"),
            mentions: ["userLoggedIn", "FieldService writes it to its own UserDefaults.standard", "FieldService/AppDelegate.swift:15"])
    }

    func testKeyLabelsThatDiffer() async throws {
        try await assertFinding("key-labels-differ", widget: Self.goodWidget.replacingOccurrences(of: "for: \"com.acme.fieldservice.recents\"", with: "for: \"com.acme.fieldservice.recent\""),
            mentions: ["com.acme.fieldservice.recent (DueToday/DueTodayWidget.swift:9)", "encrypts with com.acme.fieldservice.recents (FieldService/AppDelegate.swift:16)"])
    }

    func testTheGroupSetAfterTheSDKInitialised() async throws {
        // The current template's order: initializeSDK() in init, the group in didFinishLaunching.
        let late = Self.goodApp
            .replacingOccurrences(of: "        DataSharingHelper.shared.appGroupName = \"group.com.acme.fieldservice\"\n        DataSharingHelper.shared.isAppGroupEnabled = true\n", with: "")
            .replacingOccurrences(of: "    func userDidLogIn() {", with: """
                    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
                        DataSharingHelper.shared.appGroupName = "group.com.acme.fieldservice"
                        DataSharingHelper.shared.isAppGroupEnabled = true
                        return true
                    }

                    func userDidLogIn() {
                """)
        try await assertFinding("app-group-set-after-sdk-init", app: late,
            mentions: ["calls initializeSDK() at FieldService/AppDelegate.swift:9 (in init)", "at FieldService/AppDelegate.swift:13 (in application(_:didFinishLaunchingWithOptions:))", "SFUserAccountManager"])
    }

    func testAValueBuiltAtRunTimeIsNotGuessed() async throws {
        try await assertFinding("code-value-unreadable",
            widget: Self.goodWidget.replacingOccurrences(of: "for: \"com.acme.fieldservice.recents\"", with: "for: Bundle.main.bundleIdentifier! + \".recents\""),
            mentions: ["DueToday/DueTodayWidget.swift:9", "`Bundle.main.bundleIdentifier! + \".recents\"`", "does not guess"])
    }

    func testAnExtensionThatNeverNamesTheGroup() async throws {
        try await assertFinding("config-missing",
            widget: Self.goodWidget.replacingOccurrences(of: "        DataSharingHelper.shared.appGroupName = \"group.com.acme.fieldservice\"\n", with: ""),
            mentions: ["target DueToday's code never sets DataSharingHelper.shared.appGroupName"])
    }

    func testASourceThatDoesNotParseIsNamedAndTheImportWritesNothing() async throws {
        try write(widget: Self.goodWidget.replacingOccurrences(of: "func key() throws -> Any {", with: "func key( throws -> Any {"))
        let found = await findings()
        XCTAssertEqual(found.map(\.id), ["code-unparseable"])
        XCTAssertTrue(found[0].message.contains("DueToday/DueTodayWidget.swift:9:"), found[0].message)
        let out = work.appendingPathComponent("out")
        XCTAssertThrowsError(try ProjectImport.run(.init(xcodeproj: project, out: out))) { error in
            XCTAssertTrue("\(error)".contains("DueToday/DueTodayWidget.swift:9:"), "\(error)")
            XCTAssertTrue("\(error)".contains("nothing was written"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.path).sorted(), ["FieldService"], "no staging folder left")
    }

    // MARK: Objective-C

    /// The project with the app's source in Objective-C.
    func useObjectiveC(_ source: String) throws {
        let pbxproj = project.appendingPathComponent("project.pbxproj")
        let text = try String(contentsOf: pbxproj, encoding: .utf8)
            .replacingOccurrences(of: "AppDelegate.swift", with: "AppDelegate.m").replacingOccurrences(of: "sourcecode.swift; path = AppDelegate.m", with: "sourcecode.c.objc; path = AppDelegate.m")
        try text.write(to: pbxproj, atomically: true, encoding: .utf8)
        try source.write(to: work.appendingPathComponent("FieldService/FieldService/AppDelegate.m"), atomically: true, encoding: .utf8)
        try Self.goodWidget.write(to: widgetSource, atomically: true, encoding: .utf8)
    }

    static let objcApp = """
        #import "AppDelegate.h"
        static NSString * const kRecentsKeyLabel = @"com.acme.fieldservice.recents";

        @implementation AppDelegate

        - (instancetype)init {
            self = [super init];
            if (self) {
                [SFSDKDatasharingHelper sharedInstance].appGroupName = @"group.com.acme.fieldservice";
                [[SFSDKDatasharingHelper sharedInstance] setAppGroupEnabled:YES];
                [MobileSyncSDKManager initializeSDK];
            }
            return self;
        }

        - (void)userDidLogIn {
            NSUserDefaults *shared = [[NSUserDefaults alloc] initWithSuiteName:@"group.com.acme.fieldservice"];
            [shared setBool:YES forKey:@"userLoggedIn"];
            NSError *error = nil;
            [SFSDKKeyGenerator encryptionKeyFor:kRecentsKeyLabel error:&error];
        }

        @end
        """

    func testObjectiveCSourcesAreReadToo() async throws {
        try useObjectiveC(Self.objcApp)
        var found = await codeFindings()
        XCTAssertEqual(found.map(\.id), [], "\(found.map(\.message))")
        let out = work.appendingPathComponent("out")
        let result = try ProjectImport.run(.init(xcodeproj: project, out: out))
        XCTAssertEqual(try AppGroupConfig.load(from: try AppBundle(at: result.apps[0].bundle)),
            AppGroupConfig(appGroupName: "group.com.acme.fieldservice", appGroupsEnabled: true, userLogInStatusKey: "userLoggedIn"))

        // Each finding, provoked in Objective-C.
        let cases: [(String, String, String)] = [
            ("code-group-not-entitled", "initWithSuiteName:@\"group.com.acme.fieldservice\"", "initWithSuiteName:@\"group.com.acme.other\""),
            ("login-state-keys-differ", "forKey:@\"userLoggedIn\"", "forKey:@\"loggedIn\""),
            ("key-labels-differ", "@\"com.acme.fieldservice.recents\";", "@\"com.acme.fieldservice.other\";"),
            ("code-value-unreadable", "encryptionKeyFor:kRecentsKeyLabel", "encryptionKeyFor:[self label]"),
            ("app-group-names-differ", "appGroupName = @\"group.com.acme.fieldservice\"", "appGroupName = @\"group.com.acme.fs\""),
            ("login-state-written-elsewhere", "[shared setBool:YES forKey:@\"userLoggedIn\"];", "[[NSUserDefaults standardUserDefaults] setBool:YES forKey:@\"userLoggedIn\"];"),
        ]
        for (id, from, to) in cases {
            XCTAssertTrue(Self.objcApp.contains(from), from)
            try Self.objcApp.replacingOccurrences(of: from, with: to).write(to: work.appendingPathComponent("FieldService/FieldService/AppDelegate.m"), atomically: true, encoding: .utf8)
            found = await codeFindings()
            XCTAssertTrue(found.contains { $0.id == id && ($0.message.contains("FieldService/AppDelegate.m:") || id == "app-group-names-differ") }, "\(id): \(found.map { "\($0.id): \($0.message)" })")
        }
        let late = Self.objcApp.replacingOccurrences(of: "        [MobileSyncSDKManager initializeSDK];\n", with: "")
            .replacingOccurrences(of: "        [SFSDKDatasharingHelper sharedInstance].appGroupName", with: "        [MobileSyncSDKManager initializeSDK];\n        [SFSDKDatasharingHelper sharedInstance].appGroupName")
        try late.write(to: work.appendingPathComponent("FieldService/FieldService/AppDelegate.m"), atomically: true, encoding: .utf8)
        found = await codeFindings()
        XCTAssertEqual(found.map(\.id), ["app-group-set-after-sdk-init"], "\(found.map(\.message))")
        XCTAssertTrue(found.first?.message.contains("FieldService/AppDelegate.m:9 (in init)") == true, "\(found.map(\.message))")
    }
}
