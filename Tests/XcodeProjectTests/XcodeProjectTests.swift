import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import XcodeProject

/// Projects written here: two or three targets, variables, Debug and Release that differ.
final class XcodeProjectTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("xcproj-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("P.xcodeproj"), withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// A project with an app (App), a widget (Widget, embedded) and a framework (ignored).
    func project(projectDebug: String = "", projectRelease: String = "", appDebug: String = "", appRelease: String = "", appPhases: String = "R1, E1",
                 appDependencies: String = "", extra: String = "") throws -> XcodeProject {
        let text = """
            // !$*UTF8*$!
            {
              archiveVersion = 1; objectVersion = 56;
              objects = {
                P0 = {isa = PBXProject; buildConfigurationList = L0; mainGroup = G0; targets = (T1, T2, T3); };
                G0 = {isa = PBXGroup; children = (G1, F9); sourceTree = "<group>"; };
                G1 = {isa = PBXGroup; children = (F1, F2); path = App; sourceTree = "<group>"; };
                F1 = {isa = PBXFileReference; path = bootconfig.plist; sourceTree = "<group>"; };
                F2 = {isa = PBXFileReference; path = Ignored.swift; sourceTree = "<group>"; };
                F9 = {isa = PBXFileReference; path = Widget.appex; sourceTree = BUILT_PRODUCTS_DIR; };
                B1 = {isa = PBXBuildFile; fileRef = F1; };
                B9 = {isa = PBXBuildFile; fileRef = F9; };
                R1 = {isa = PBXResourcesBuildPhase; files = (B1); };
                E1 = {isa = PBXCopyFilesBuildPhase; dstSubfolderSpec = 13; files = (B9); };
                T1 = {isa = PBXNativeTarget; name = App; productType = "com.apple.product-type.application"; buildConfigurationList = L1; buildPhases = (\(appPhases)); dependencies = (\(appDependencies)); };
                T2 = {isa = PBXNativeTarget; name = Widget; productType = "com.apple.product-type.app-extension"; buildConfigurationList = L2; buildPhases = (); productReference = F9; };
                T3 = {isa = PBXNativeTarget; name = Kit; productType = "com.apple.product-type.framework"; buildConfigurationList = L2; buildPhases = (); };
                L0 = {isa = XCConfigurationList; buildConfigurations = (C0D, C0R); };
                L1 = {isa = XCConfigurationList; buildConfigurations = (C1D, C1R); };
                L2 = {isa = XCConfigurationList; buildConfigurations = (C2D, C2R); };
                C0D = {isa = XCBuildConfiguration; name = Debug; buildSettings = { PREFIX = com.example; FLAGS = "-a"; \(projectDebug) }; };
                C0R = {isa = XCBuildConfiguration; name = Release; buildSettings = { PREFIX = com.example; FLAGS = "-a"; \(projectRelease) }; };
                C1D = {isa = XCBuildConfiguration; name = Debug; buildSettings = { PRODUCT_BUNDLE_IDENTIFIER = "$(PREFIX).$(PRODUCT_NAME:rfc1034identifier)"; PRODUCT_NAME = "My App"; FLAGS = "$(inherited) -b"; \(appDebug) }; };
                C1R = {isa = XCBuildConfiguration; name = Release; buildSettings = { PRODUCT_BUNDLE_IDENTIFIER = "${PREFIX}.${TARGET_NAME}"; \(appRelease) }; };
                C2D = {isa = XCBuildConfiguration; name = Debug; buildSettings = { PRODUCT_BUNDLE_IDENTIFIER = "$(PREFIX).App.$(TARGET_NAME)"; }; };
                C2R = {isa = XCBuildConfiguration; name = Release; buildSettings = { PRODUCT_BUNDLE_IDENTIFIER = "$(PREFIX).App.$(TARGET_NAME)"; }; };
                \(extra)
              };
              rootObject = P0;
            }
            """
        try text.write(to: dir.appendingPathComponent("P.xcodeproj/project.pbxproj"), atomically: true, encoding: .utf8)
        return try XcodeProject(at: dir.appendingPathComponent("P.xcodeproj"))
    }

    func testTargetsSettingsAndVariablesPerConfiguration() throws {
        let p = try project(projectDebug: "DEVELOPMENT_TEAM = TEAM000001;")
        XCTAssertEqual(p.apps.map(\.name), ["App"])
        XCTAssertEqual(p.appExtensions.map(\.name), ["Widget"])
        XCTAssertEqual(p.targets.map(\.name), ["App", "Widget", "Kit"])
        XCTAssertEqual(p.configurationNames, ["Debug", "Release"])
        let app = p.apps[0]
        let debug = try p.settings(for: app, configuration: "Debug")
        XCTAssertEqual(debug["PRODUCT_BUNDLE_IDENTIFIER"], "com.example.My-App")
        XCTAssertEqual(debug["FLAGS"], "-a -b", "$(inherited) is the project's value")
        XCTAssertEqual(debug["AppIdentifierPrefix"], "TEAM000001.")
        XCTAssertEqual(debug.origins["PRODUCT_NAME"], "target App, Debug")
        XCTAssertEqual(debug.origins["DEVELOPMENT_TEAM"], "project, Debug")
        let release = try p.settings(for: app, configuration: "Release")
        XCTAssertEqual(release["PRODUCT_BUNDLE_IDENTIFIER"], "com.example.App", "Release: PRODUCT_NAME defaults to the target name")
        XCTAssertNil(release["DEVELOPMENT_TEAM"], "Release sets no team")
        XCTAssertNil(release["AppIdentifierPrefix"])
        XCTAssertEqual(release.unresolved(in: "$(AppIdentifierPrefix)x"), ["AppIdentifierPrefix"])
        XCTAssertThrowsError(try p.settings(for: app, configuration: "Beta")) { XCTAssertTrue("\($0)".contains("Debug, Release")) }
    }

    func testEmbeddedExtensionsAndResourcePaths() throws {
        let p = try project()
        XCTAssertEqual(p.embeddedExtensions(of: p.apps[0]).map(\.name), ["Widget"])
        XCTAssertEqual(p.resources(of: p.apps[0])["bootconfig.plist"]?.path, dir.appendingPathComponent("App/bootconfig.plist").path)
    }

    func testAnExtensionOnlyAsADependencyIsStillEmbedded() throws {
        let p = try project(appPhases: "R1", appDependencies: "D1", extra: "D1 = {isa = PBXTargetDependency; target = T2; };")
        XCTAssertEqual(p.embeddedExtensions(of: p.apps[0]).map(\.name), ["Widget"])
        let none = try project(appPhases: "R1")
        XCTAssertEqual(none.embeddedExtensions(of: none.apps[0]).map(\.name), [])
    }

    func testXcconfigBaseConfigurationsSitUnderTheirLevel() throws {
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("Config"), withIntermediateDirectories: true)
        try "// shared\nDEVELOPMENT_TEAM = XCTEAM0001\nPREFIX = org.sample // overridden by the project\n".write(
            to: dir.appendingPathComponent("Config/Common.xcconfig"), atomically: true, encoding: .utf8)
        try "#include \"Common.xcconfig\"\nPRODUCT_NAME[sdk=iphoneos*] = Configured\n".write(
            to: dir.appendingPathComponent("Config/App.xcconfig"), atomically: true, encoding: .utf8)
        _ = try project(extra: """
            X1 = {isa = PBXFileReference; path = Config/App.xcconfig; sourceTree = "<group>"; };
            """)
        // Point the app's Release configuration at the file.
        let path = dir.appendingPathComponent("P.xcodeproj/project.pbxproj")
        let text = try String(contentsOf: path, encoding: .utf8).replacingOccurrences(
            of: "C1R = {isa = XCBuildConfiguration; name = Release;", with: "C1R = {isa = XCBuildConfiguration; name = Release; baseConfigurationReference = X1;")
        try text.write(to: path, atomically: true, encoding: .utf8)
        let q = try XcodeProject(at: path)
        let release = try q.settings(for: q.apps[0], configuration: "Release")
        XCTAssertEqual(release["DEVELOPMENT_TEAM"], "XCTEAM0001")
        XCTAssertEqual(release.origins["DEVELOPMENT_TEAM"], "target App .xcconfig, Release")
        XCTAssertEqual(release["PREFIX"], "org.sample", "the target's xcconfig sits above the project level")
        XCTAssertEqual(release["PRODUCT_BUNDLE_IDENTIFIER"], "org.sample.App")
        XCTAssertEqual(try q.settings(for: q.apps[0], configuration: "Debug")["PRODUCT_BUNDLE_IDENTIFIER"], "com.example.My-App", "Debug has no xcconfig")
        XCTAssertEqual(release["PRODUCT_NAME"], "Configured")
    }

    func testModifiers() {
        let s = BuildSettings(values: ["N": "My App 2", "A": "$(B)", "B": "$(A)"], origins: [:])
        XCTAssertEqual(s.expand("$(N:rfc1034identifier)"), "My-App-2")
        XCTAssertEqual(s.expand("$(N:c99extidentifier)"), "My_App_2")
        XCTAssertEqual(s.expand("$(N:lower)|${N:upper}|$(MISSING)|$"), "my app 2|MY APP 2||$")
        XCTAssertEqual(s.expand("$(A)"), "", "a cycle ends, it does not hang")
    }

    func testUnknownProductTypesAndCorruptFilesAreClearErrors() throws {
        let path = dir.appendingPathComponent("P.xcodeproj/project.pbxproj")
        _ = try project()
        var text = try String(contentsOf: path, encoding: .utf8)
        text = text.replacingOccurrences(of: "com.apple.product-type.framework", with: "com.example.product-type.gadget")
        try text.write(to: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try XcodeProject(at: path)) { XCTAssertTrue("\($0)".contains("target Kit has the product type com.example.product-type.gadget"), "\($0)") }
        try "{\n  objects = {\n    A = {isa = PBXProject;\n}".write(to: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try XcodeProject(at: dir.appendingPathComponent("P.xcodeproj"))) { error in
            XCTAssertTrue("\(error)".hasPrefix(path.path + ":4:2:"), "\(error)")
        }
        try "{ a = 1; }".write(to: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try XcodeProject(at: path)) { XCTAssertTrue("\($0)".contains("not an Xcode project"), "\($0)") }
        XCTAssertThrowsError(try XcodeProject(at: dir.appendingPathComponent("None.xcodeproj"))) { XCTAssertTrue("\($0)".contains("does not exist")) }
    }

    /// A group that contains itself, directly or through another, crashed import and doctor (a walk up the
    /// tree without end): refused by name at load.
    func testACyclicOrSelfContainingGroupIsRefusedByName() throws {
        for extra in [
            "GS = {isa = PBXGroup; name = Loop; children = (GS); sourceTree = \"<group>\"; };",
            "GA = {isa = PBXGroup; name = Outer; children = (GB); sourceTree = \"<group>\"; }; GB = {isa = PBXGroup; name = Inner; children = (GA, F7); sourceTree = \"<group>\"; }; F7 = {isa = PBXFileReference; path = x.swift; sourceTree = \"<group>\"; };",
        ] {
            XCTAssertThrowsError(try project(extra: extra)) { error in
                guard case XcodeProjectError.malformed(_, let detail) = error else { return XCTFail("\(error)") }
                XCTAssertTrue(detail.contains("cycle"), detail)
            }
        }
    }

    /// Groups nest up to `maxGroupDepth` levels, and a file at the bottom has its path; one more level is refused.
    func testGroupDepthIsBoundedAtTheLimitAndRefusedPastIt() throws {
        func chain(_ n: Int) -> String {
            (1...n).map { i in i < n ? "D\(i) = {isa = PBXGroup; children = (D\(i + 1)); path = d; sourceTree = \"<group>\"; };"
                : "D\(i) = {isa = PBXGroup; children = (FD); path = d; sourceTree = \"<group>\"; }; FD = {isa = PBXFileReference; path = deep.swift; sourceTree = \"<group>\"; };" }.joined(separator: "\n")
        }
        // The chain hangs under nothing: D1 is a root group; FD is one more level.
        let atBound = try project(extra: chain(XcodeProject.maxGroupDepth - 1))
        let path = try XCTUnwrap(atBound.path(of: "FD")).path
        XCTAssertTrue(path.hasSuffix(String(repeating: "/d", count: XcodeProject.maxGroupDepth - 1) + "/deep.swift"), path)
        XCTAssertThrowsError(try project(extra: chain(XcodeProject.maxGroupDepth))) { error in
            guard case XcodeProjectError.malformed(_, let detail) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(detail.contains("deeper than \(XcodeProject.maxGroupDepth)"), detail)
        }
    }
}
