import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import AppGroup

/// Apps installed on a device, their URL schemes, and where a URL goes: the inbox of a running app, or a launch.
final class DeviceAppsTests: XCTestCase {
    var root: URL!
    var apps: DeviceApps!

    override func tearDown() { apps = nil; super.tearDown() }

    override func setUpWithError() throws {
        root = try TestSupport.temporaryDirectory(self)
        apps = DeviceApps(device: try Device.open(at: root.appendingPathComponent("device")))
    }

    func bundle(_ name: String, id: String, schemes: [String]) throws -> AppBundle {
        let url = root.appendingPathComponent("\(name).app")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let info: [String: Any] = ["CFBundleIdentifier": id, "CFBundleURLTypes": [["CFBundleURLSchemes": schemes]]]
        try PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0).write(to: url.appendingPathComponent("Info.plist"))
        try PropertyListSerialization.data(fromPropertyList: [String: Any](), format: .xml, options: 0).write(to: url.appendingPathComponent("\(name).entitlements"))
        return try AppBundle(at: url)
    }

    func testInstalledAppsAndTheirSchemes() throws {
        try apps.install(try bundle("IDP", id: "com.acme.idp", schemes: ["CompanyLogin", "companylogin", "cl"]))
        try apps.install(try bundle("SP", id: "com.acme.sp", schemes: ["fieldsales"]))
        XCTAssertEqual(try apps.apps().map(\.bundleIdentifier), ["com.acme.idp", "com.acme.sp"])
        XCTAssertEqual(try apps.app(bundleID: "com.acme.idp").schemes, ["companylogin", "cl"], "lowercased, once each")
        XCTAssertEqual(try apps.app(for: URL(string: "COMPANYLOGIN://oauth2/v1.0/authrequest")!).bundleIdentifier, "com.acme.idp")
        XCTAssertThrowsError(try apps.app(for: URL(string: "nobody://x")!)) { XCTAssertEqual($0 as? DeviceApps.Failure, .unknownScheme("nobody")) }
        XCTAssertThrowsError(try apps.app(bundleID: "com.acme.none"))
        // A second app claiming a scheme: opening it names both.
        try apps.install(try bundle("Twin", id: "com.acme.twin", schemes: ["fieldsales"]))
        XCTAssertThrowsError(try apps.app(for: URL(string: "fieldsales://x")!)) {
            XCTAssertEqual($0 as? DeviceApps.Failure, .schemeClaimedTwice(scheme: "fieldsales", apps: ["com.acme.sp", "com.acme.twin"]))
        }
        // A corrupt registry is an error naming the file, not an empty device.
        try Data("not a plist".utf8).write(to: root.appendingPathComponent("device/InstalledApps.plist"))
        XCTAssertThrowsError(try apps.apps()) { XCTAssertTrue("\($0)".contains("InstalledApps.plist"), "\($0)") }
    }

    func testAURLGoesToTheRunningAppsInboxInOrderElseItIsLaunched() throws {
        let sp = try bundle("SP", id: "com.acme.sp", schemes: ["fieldsales"])
        try apps.install(sp)
        var launched: [URL] = []
        let first = URL(string: "fieldsales://oauth2/v1.0/authresponse?code=1")!
        XCTAssertEqual(try apps.open(first) { _, url in launched.append(url) }, .launched(bundleID: "com.acme.sp"))
        XCTAssertEqual(launched, [first])
        XCTAssertFalse(apps.isRunning(bundleID: "com.acme.sp"))

        let running = LockedLock(try AppInstanceLock(sandbox: AppSandbox(device: apps.device, bundle: sp)))
        XCTAssertTrue(apps.isRunning(bundleID: "com.acme.sp"))
        let second = URL(string: "fieldsales://oauth2/v1.0/authresponse?code=2")!
        let third = URL(string: "fieldsales://oauth2/v1.0/error?errorCode=x")!
        // The running app takes what arrives (as a shell does): open says "inbox" only once it took it, in order.
        let taken = LockedURLs()
        let reader = Thread { [apps] in
            while taken.count < 2 {
                if let url = try? apps!.takeNext(bundleID: "com.acme.sp") { taken.append(url) } else { usleep(5_000) }
            }
        }
        reader.start()
        XCTAssertEqual(try apps.open(second) { _, _ in XCTFail("launched a running app") }, .inbox(bundleID: "com.acme.sp"))
        XCTAssertEqual(try apps.open(third) { _, _ in XCTFail("launched a running app") }, .inbox(bundleID: "com.acme.sp"))
        XCTAssertEqual(taken.all, [second, third])
        XCTAssertNil(try apps.takeNext(bundleID: "com.acme.sp"), "taken URLs are not kept (they carry one-time codes)")
        // A running app that does not take it in time: an error, and the URL waits for it.
        XCTAssertThrowsError(try apps.open(second, timeout: 0.2) { _, _ in XCTFail("launched a running app") }) { error in
            XCTAssertTrue("\(error)".contains("did not take the URL from its inbox within 0 s"), "\(error)")
        }
        XCTAssertEqual(try apps.takeNext(bundleID: "com.acme.sp"), second)
        // A running app that quits before it takes it: the URL is taken back and the app launched with it.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { running.release() }
        var relaunched: [URL] = []
        XCTAssertEqual(try apps.open(third) { _, url in relaunched.append(url) }, .launched(bundleID: "com.acme.sp"))
        XCTAssertEqual(relaunched, [third])
        XCTAssertNil(try apps.takeNext(bundleID: "com.acme.sp"), "nothing left behind")
        // An app launched for one URL takes that item, not the oldest; a name that is no inbox item is refused.
        let older = try apps.post(third, to: "com.acme.sp")
        let mine = try apps.post(second, to: "com.acme.sp")
        XCTAssertEqual(try apps.take(mine, bundleID: "com.acme.sp"), second)
        XCTAssertNil(try apps.take(mine, bundleID: "com.acme.sp"), "taken once")
        XCTAssertThrowsError(try apps.take("../../device.json", bundleID: "com.acme.sp"))
        XCTAssertEqual(try apps.takeNext(bundleID: "com.acme.sp"), third)
        XCTAssertNil(try apps.take(older, bundleID: "com.acme.sp"))
        withExtendedLifetime(running) {}
    }

    func testAURLThatWaitedLongerThanItsLifetimeIsRemovedUnreadAndNamed() throws {
        let first = try apps.post(URL(string: "fieldsales://oauth2/v1.0/authresponse?code=old")!, to: "com.acme.sp")
        let second = try apps.post(URL(string: "fieldsales://oauth2/v1.0/authresponse?code=new")!, to: "com.acme.sp")
        let posted = try XCTUnwrap(DeviceApps.postedAt(second))
        XCTAssertLessThan(abs(posted.timeIntervalSinceNow), 60, "the name carries the time it was posted")
        // Eleven minutes later for the first, one for the second: only the first is past the lifetime.
        let old = String(format: "%015.0f", (Date().timeIntervalSince1970 - 660) * 1000) + "-aaaaaaaa.url"
        let inbox = apps.urlInbox(bundleID: "com.acme.sp")
        try FileManager.default.moveItem(at: inbox.appendingPathComponent(first), to: inbox.appendingPathComponent(old))
        var expired: [(String, TimeInterval)] = []
        let next = try apps.takeNext(bundleID: "com.acme.sp") { expired.append(($0, $1)) }
        XCTAssertEqual(next?.absoluteString, "fieldsales://oauth2/v1.0/authresponse?code=new")
        XCTAssertEqual(expired.map(\.0), [old])
        XCTAssertGreaterThan(expired.first?.1 ?? 0, DeviceApps.urlLifetime)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: inbox.path), [], "neither is left: one-time codes are not kept")
        XCTAssertNil(try apps.takeNext(bundleID: "com.acme.sp"))
    }

    func testBundleIdsThatDifferOnlyInCaseAreOneApp() throws {
        try apps.install(try bundle("Collide", id: "com.acme.Collide", schemes: ["collide"]))
        XCTAssertThrowsError(try apps.install(try bundle("collide2", id: "com.acme.collide", schemes: ["other"]))) { error in
            XCTAssertEqual(error as? DeviceError, .bundleIDCollides(bundleID: "com.acme.collide", existing: "com.acme.Collide"))
        }
        XCTAssertNoThrow(try apps.install(try bundle("Collide", id: "com.acme.Collide", schemes: ["collide"])), "the same id again is an update")
        // At launch: a container of the id in another case refuses the bundle before anything is written.
        try FileManager.default.createDirectory(at: apps.device.dataContainer(bundleID: "com.acme.Collide"), withIntermediateDirectories: true)
        let sandbox = AppSandbox(device: apps.device, bundle: try bundle("lower", id: "com.acme.collide", schemes: []))
        XCTAssertThrowsError(try sandbox.checkContainers()) { XCTAssertTrue("\($0)".contains("unique without regard to case"), "\($0)") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: apps.device.dataContainer(bundleID: "com.acme.collide").path))
    }

    /// 10,000 reloads from two writers at once: the file stays bounded, no reload is lost from the count, and a
    /// follower reads only what was added (the count it keeps matches a full read through compactions).
    func testWidgetReloadsAreBoundedAndCountedAndFollowedIncrementally() throws {
        let layout = apps.device.layout
        var tail = WidgetReloads.Tail(layout, app: "com.acme.app")
        XCTAssertEqual(tail.count, 0)
        let perWriter = 5_000
        DispatchQueue.concurrentPerform(iterations: 2) { writer in
            for _ in 0..<perWriter { try? WidgetReloads.record(layout, app: "com.acme.app", kind: "Recents", from: "writer\(writer)") }
        }
        XCTAssertEqual(WidgetReloads.count(layout, app: "com.acme.app"), 2 * perWriter)
        let size = try FileManager.default.attributesOfItem(atPath: WidgetReloads.file(layout, app: "com.acme.app").path)[.size] as? Int ?? 0
        XCTAssertLessThanOrEqual(size, WidgetReloads.compactAtBytes + 200, "bounded")
        XCTAssertLessThanOrEqual(WidgetReloads.all(layout, app: "com.acme.app").count, WidgetReloads.compactAtBytes / 40)
        XCTAssertTrue(tail.poll())
        XCTAssertEqual(tail.count, 2 * perWriter)
        XCTAssertFalse(tail.poll(), "nothing new")
        try WidgetReloads.record(layout, app: "com.acme.app", kind: nil, from: "app")
        XCTAssertTrue(tail.poll())
        XCTAssertEqual(tail.count, 2 * perWriter + 1)
        XCTAssertEqual(WidgetReloads.all(layout, app: "com.acme.app").last?.from, "app")
    }
}

/// An app's instance lock, released from another thread (the app quits).
final class LockedLock: @unchecked Sendable {
    private let lock = NSLock()
    private var held: AppInstanceLock?
    init(_ held: AppInstanceLock) { self.held = held }
    func release() { lock.withLock { held = nil } }
}

/// URLs taken by a reader thread, in order.
final class LockedURLs: @unchecked Sendable {
    private let lock = NSLock()
    private var urls: [URL] = []
    func append(_ url: URL) { lock.withLock { urls.append(url) } }
    var count: Int { lock.withLock { urls.count } }
    var all: [URL] { lock.withLock { urls } }
}
