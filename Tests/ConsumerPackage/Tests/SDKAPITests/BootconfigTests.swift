// The SDK's BootconfigTests (libs/SalesforceSDKCore/SalesforceSDKCoreTests/BootconfigTests.swift at aea9bf3),
// rewritten against the SDK-named products: BootConfig from a dictionary and from a file, its validation with the
// SDK's error domain and codes, whitespace trimming, the default shouldAuthenticate, duplicate scopes. One case
// differs on purpose: here the process's main bundle is the fixture app, which has a bootconfig.plist, so
// fromDefaultConfigFile() finds it (the SDK's test bundle has none, and gets nil).
import Foundation
import SalesforceSDKCore
import XCTest

final class BootconfigTests: XCTestCase {
    func testInitializationWithValidAndEmptyDictionaries() throws {
        let config = try XCTUnwrap(BootConfig(["remoteAccessConsumerKey": "testConsumerKey", "oauthRedirectURI": "testRedirectURI",
                                               "oauthScopes": ["scope1", "scope2"], "shouldAuthenticate": true]))
        XCTAssertEqual(config.remoteAccessConsumerKey, "testConsumerKey")
        XCTAssertEqual(config.oauthRedirectURI, "testRedirectURI")
        XCTAssertEqual(config.oauthScopes, Set(["scope1", "scope2"]))
        XCTAssertTrue(config.shouldAuthenticateOnFirstLaunch)
        let empty = try XCTUnwrap(BootConfig([:]))
        XCTAssertEqual(empty.remoteAccessConsumerKey, "")
        XCTAssertEqual(empty.oauthRedirectURI, "")
        XCTAssertEqual(empty.oauthScopes, Set<String>())
        XCTAssertTrue(empty.shouldAuthenticateOnFirstLaunch, "true when the dictionary does not say")
        XCTAssertTrue(BootConfig(nil)?.shouldAuthenticateOnFirstLaunch ?? false)
        XCTAssertFalse(BootConfig(["shouldAuthenticate": false])?.shouldAuthenticateOnFirstLaunch ?? true)
    }

    func testConfigFilesThatAreMissingOrNotAPlistGiveNil() throws {
        XCTAssertNil(BootConfig("/path/to/non/existent/file.plist"))
        XCTAssertNil(BootConfig.fromConfigFile("/path/to/non/existent/file.plist"))
        XCTAssertNil(BootConfig.fromConfigFile("test_config_class.plist"), "looked for under the main bundle's resources")
        let resources = try XCTUnwrap(ProcessInfo.processInfo.environment["APPGROUPSIM_BUNDLE"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: resources + "/userstore.json"))
        XCTAssertNil(BootConfig("userstore.json"), "a file of the bundle that is not a property list (JSON)")
    }

    func testTheMainBundlesBootconfig() throws {
        let config = try XCTUnwrap(BootConfig.fromDefaultConfigFile(), "the fixture app's bootconfig.plist")
        XCTAssertEqual(config.remoteAccessConsumerKey, "3MVG9AppGroupSim.MobileSyncExplorer.Sample")
        XCTAssertNoThrow(try config.validate())
    }

    func testValidation() {
        func code(_ dict: [String: Any]) -> Int? {
            do {
                try BootConfig(dict)?.validate()
                return nil
            } catch {
                XCTAssertEqual((error as NSError).domain, BootConfig.errorDomain)
                return (error as NSError).code
            }
        }
        XCTAssertNil(code(["remoteAccessConsumerKey": "testConsumerKey", "oauthRedirectURI": "testRedirectURI", "oauthScopes": ["scope1"]]))
        XCTAssertNil(code(["remoteAccessConsumerKey": "testConsumerKey", "oauthRedirectURI": "testRedirectURI", "oauthScopes": []]), "empty scopes pass")
        XCTAssertNil(code(["remoteAccessConsumerKey": "testConsumerKey", "oauthRedirectURI": "testRedirectURI"]), "no scopes pass")
        XCTAssertEqual(code(["oauthRedirectURI": "testRedirectURI"]), BootConfig.ErrorCode.noConsumerKey.rawValue)
        XCTAssertEqual(code(["remoteAccessConsumerKey": "", "oauthRedirectURI": "testRedirectURI"]), 966)
        XCTAssertEqual(code(["remoteAccessConsumerKey": "testConsumerKey"]), BootConfig.ErrorCode.noRedirectURI.rawValue)
        XCTAssertEqual(code(["remoteAccessConsumerKey": "testConsumerKey", "oauthRedirectURI": ""]), 967)
        XCTAssertEqual(code(["remoteAccessConsumerKey": "   ", "oauthRedirectURI": "   "]), 966, "whitespace only is empty once trimmed")
    }

    func testTrimmingAndDuplicateScopes() throws {
        let config = try XCTUnwrap(BootConfig(["remoteAccessConsumerKey": "  testConsumerKey  ", "oauthRedirectURI": "  testRedirectURI  ",
                                               "oauthScopes": ["scope1", "scope2", "scope1"]]))
        XCTAssertEqual(config.remoteAccessConsumerKey, "testConsumerKey")
        XCTAssertEqual(config.oauthRedirectURI, "testRedirectURI")
        XCTAssertEqual(config.oauthScopes.count, 2)
        XCTAssertEqual(BootConfig(["oauthScopes": []])?.oauthScopes.count, 0)
    }
}
