import Foundation
import Testing

@testable import SourceReader

/// The readers over sources written the way the SDK's templates write them (rewritten, not copied).
struct SwiftReaderTests {
    static let appDelegate = #"""
        import UIKit
        import MobileSync

        class AppDelegate: UIResponder, UIApplicationDelegate {
            override init() {
                super.init()
                MobileSyncSDKManager.initializeSDK()
            }

            func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
                // DataSharingHelper.shared.appGroupName = "group.in.a.comment"
                DataSharingHelper.shared.appGroupName = "group.com.acme.recents"
                DataSharingHelper.shared.isAppGroupEnabled = true
                let shared = UserDefaults(suiteName: "group.com.acme.recents")
                shared?.set(true, forKey: "userLoggedIn")
                UserDefaults.standard.set("x", forKey: "notAFlag")
                return true
            }
        }
        """#

    static let widget = #"""
        import WidgetKit
        import SalesforceSDKCommon.SFSDKDatasharingHelper

        struct Provider {
            static let label = "com.acme.recents.key"
            init() {
                DataSharingHelper.shared.appGroupName = groupName()
            }
            func read() {
                let key = try? KeyGenerator.encryptionKey(for: Provider.label)
                let url = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.com.acme.recents")
                if UserDefaults.msdk().bool(forKey: "isLoggedIn") { }
                _ = "KeyGenerator.encryptionKey(for: \"in a string\")"
            }
        }
        """#

    @Test func readsTheAppDelegate() throws {
        let facts = try SwiftReader.read(Self.appDelegate, file: "App/AppDelegate.swift")
        let t = TargetFacts(files: [("App/AppDelegate.swift", facts)])
        #expect(t.sites(.initializeSDK).map(\.line) == [7])
        #expect(t.sites(.initializeSDK).first?.function == "init")
        let name = try #require(t.sites(.groupName).first)
        #expect(t.sites(.groupName).count == 1, "the commented-out line is not code")
        #expect(name.value == .string("group.com.acme.recents"))
        #expect(name.location == "App/AppDelegate.swift:12")
        #expect(name.function == "application(_:didFinishLaunchingWithOptions:)")
        #expect(name.type == "AppDelegate")
        #expect(t.sites(.groupEnabled).first?.value == .bool(true))
        #expect(t.sites(.defaultsSuite).first?.value == .string("group.com.acme.recents"))
        let write = try #require(t.sites(.boolWrite).first)
        #expect(t.sites(.boolWrite).count == 1, "a string value is not a flag")
        #expect(write.key == .string("userLoggedIn"))
        #expect(write.value == .bool(true))
        #expect(write.defaults == .suite("group.com.acme.recents"))
    }

    @Test func readsConstantsAndRefusesToGuess() throws {
        let facts = try SwiftReader.read(Self.widget, file: "Widget/Provider.swift")
        let t = TargetFacts(files: [("Widget/Provider.swift", facts)])
        #expect(t.sites(.groupName).first?.value == .unreadable("groupName()"))
        let label = try #require(t.sites(.keyLabel).first)
        #expect(t.sites(.keyLabel).count == 1, "a string's contents are not code")
        #expect(label.value == .string("com.acme.recents.key"))
        #expect(label.via == "label (Widget/Provider.swift:5)")
        #expect(t.sites(.containerGroup).first?.value == .string("group.com.acme.recents"))
        let read = try #require(t.sites(.boolRead).first)
        #expect(read.key == .string("isLoggedIn"))
        #expect(read.defaults == .msdk)
    }

    @Test func anAmbiguousConstantStaysUnread() throws {
        let a = try SwiftReader.read("enum A { static let label = \"one\" }\nfunc f() { _ = try? KeyGenerator.encryptionKey(for: label) }", file: "A.swift")
        let b = try SwiftReader.read("enum B { static let label = \"two\" }", file: "B.swift")
        let t = TargetFacts(files: [("A.swift", a), ("B.swift", b)])
        #expect(t.sites(.keyLabel).first?.value == .unreadable("label"))
        let interpolated = try SwiftReader.read("func f(_ x: String) { DataSharingHelper.shared.appGroupName = \"group.\\(x)\" }", file: "C.swift")
        #expect(interpolated.sites.first?.value == .unreadable("\"group.\\(x)\""))
    }

    @Test func aFileThatDoesNotParseIsNamedWithItsLine() {
        #expect(throws: SourceReadError.self) { try SwiftReader.read("import Foundation\n\nfunc f( {\n", file: "Bad.swift") }
        do {
            _ = try SwiftReader.read("import Foundation\n\nfunc f( {\n", file: "Bad.swift")
        } catch let error as SourceReadError {
            guard case .syntax(let file, let line, _, let message) = error else { Issue.record("not a syntax error: \(error)"); return }
            #expect(file == "Bad.swift")
            #expect(line == 3)
            #expect(!message.isEmpty)
        } catch { Issue.record("\(error)") }
    }
}

struct ObjCReaderTests {
    static let appDelegate = #"""
        #import "AppDelegate.h"
        #define NOT_READ @"group.in.a.macro"
        static NSString * const kKeyLabel = @"com.acme.recents.key";

        @implementation AppDelegate

        - (instancetype)init {
            self = [super init];
            if (self) {
                [MobileSyncSDKManager initializeSDK];
            }
            return self;
        }

        - (BOOL)application:(UIApplication *)application didFinishLaunchingWithOptions:(NSDictionary *)launchOptions {
            /* [SFSDKDatasharingHelper sharedInstance].appGroupName = @"group.in.a.comment"; */
            [SFSDKDatasharingHelper sharedInstance].appGroupName = @"group.com.acme.recents";
            [[SFSDKDatasharingHelper sharedInstance] setAppGroupEnabled:YES];
            NSUserDefaults *shared = [[NSUserDefaults alloc] initWithSuiteName:@"group.com.acme.recents"];
            [shared setBool:YES forKey:@"userLoggedIn"];
            NSError *error = nil;
            NSData *key = [SFSDKKeyGenerator encryptionKeyFor:kKeyLabel error:&error];
            NSURL *url = [[NSFileManager defaultManager] containerURLForSecurityApplicationGroupIdentifier:[self groupName]];
            NSLog(@"[SFSDKDatasharingHelper sharedInstance].appGroupName = @\"x\"");
            return [[NSUserDefaults msdkUserDefaults] boolForKey:@"userLoggedIn"];
        }

        @end
        """#

    @Test func readsMessageSends() throws {
        let facts = ObjCReader.read(Self.appDelegate, file: "App/AppDelegate.m")
        let t = TargetFacts(files: [("App/AppDelegate.m", facts)])
        let initialize = try #require(t.sites(.initializeSDK).first)
        #expect(initialize.function == "init")
        #expect(initialize.line == 10)
        #expect(initialize.type == "AppDelegate")
        #expect(t.sites(.groupName).map(\.value) == [.string("group.com.acme.recents")], "neither the comment nor the NSLog string is code")
        #expect(t.sites(.groupName).first?.line == 17)
        #expect(t.sites(.groupName).first?.function == "application:didFinishLaunchingWithOptions:")
        #expect(t.sites(.groupEnabled).map(\.value) == [.bool(true)])
        #expect(t.sites(.defaultsSuite).map(\.value) == [.string("group.com.acme.recents")])
        let write = try #require(t.sites(.boolWrite).first)
        #expect(write.key == .string("userLoggedIn"))
        #expect(write.value == .bool(true))
        #expect(write.defaults == .suite("group.com.acme.recents"))
        let label = try #require(t.sites(.keyLabel).first)
        #expect(label.value == .string("com.acme.recents.key"))
        #expect(label.via == "kKeyLabel (App/AppDelegate.m:3)")
        #expect(t.sites(.containerGroup).first?.value == .unreadable("[ self groupName ]"))
        let read = try #require(t.sites(.boolRead).first)
        #expect(read.defaults == .msdk)
        #expect(read.key == .string("userLoggedIn"))
    }

    @Test func tokenizerKeepsLinesThroughCommentsAndContinuations() {
        let tokens = ObjCReader.tokenize("#define A \\\n  1\n/* a\n b */ x // y\n@\"s\\\"t\" z")
        #expect(tokens.map(\.text) == ["x", "s\\\"t", "z"])
        #expect(tokens.map(\.line) == [4, 5, 5])
    }
}
