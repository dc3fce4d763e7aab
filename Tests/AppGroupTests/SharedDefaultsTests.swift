import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import AppGroup

final class SharedDefaultsTests: XCTestCase {
    func testEveryPlistTypeRoundTripsThroughTheFileWithItsTypeKept() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let suite = SharedDefaults(url: dir.appendingPathComponent("s.plist"))
        let values: [String: PlistValue] = [
            "bool": true, "falseBool": false, "int": 1, "big": .int(Int.max), "double": 1.5, "string": "héllo",
            "data": .data(Data([0, 1, 255])), "date": .date(Date(timeIntervalSince1970: 1_700_000_000)),
            "array": [1, "two", false], "dict": ["nested": ["deep": 3.25]],
        ]
        for (k, v) in values { try suite.set(v, forKey: k) }
        let reopened = SharedDefaults(url: suite.url)
        XCTAssertEqual(try reopened.dictionaryRepresentation(), values)
        XCTAssertEqual(try reopened.value(forKey: "int"), .int(1), "an integer 1 must not read back as a bool")
        XCTAssertEqual(try reopened.value(forKey: "bool"), .bool(true), "a bool must not read back as an integer")
    }

    /// Found by scripts/fuzz (Plist): this 121-byte binary plist crashes corelibs Foundation's
    /// PropertyListSerialization (SIGSEGV). It must be refused as corrupt before Foundation sees it.
    func testABinaryPlistThatCrashesFoundationIsRefusedAsCorrupt() throws {
        let crasher = try Data(contentsOf: TestSupport.packageRoot.appendingPathComponent("Tests/Fuzz/Plist/corpus/regression-binary-set-crashes-foundation"))
        guard case .failure(.corrupt(let detail)) = SharedDefaults.decode(crasher) else { return XCTFail("decoded or not refused") }
        XCTAssertTrue(detail.contains("binary property list"), detail)

        // A binary plist with a set (Foundation reads sets from binary plists; defaults never hold one).
        var withSet = Data("bplist00".utf8)
        withSet += [0xA1, 0x01, 0xC1, 0x02, 0x10, 0x05]  // array [set {5}]
        let table = withSet.count
        withSet += [0x08, 0x0A, 0x0C]
        withSet += [0, 0, 0, 0, 0, 0, 1, 1] + Self.be(3) + Self.be(0) + Self.be(UInt64(table))
        guard case .failure(.corrupt) = SharedDefaults.decode(withSet) else { return XCTFail("a set was not refused") }

        // The check lets real binary plists through.
        let good = try PropertyListSerialization.data(
            fromPropertyList: ["userLoggedIn": true, "n": 42, "s": "é", "a": [1.5, "x"], "d": Data([0, 1])] as [String: Any], format: .binary, options: 0)
        guard case .success(let dict) = SharedDefaults.decode(good) else { return XCTFail("a good binary plist was refused") }
        XCTAssertEqual(dict["userLoggedIn"], .bool(true))
        XCTAssertEqual(dict["n"], .int(42))
    }

    static func be(_ v: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }

    func testXMLKeepsDatesToTheSecond() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let suite = SharedDefaults(url: dir.appendingPathComponent("s.plist"))
        try suite.set(.date(Date(timeIntervalSince1970: 1000.75)), forKey: "d")
        XCTAssertEqual(try suite.value(forKey: "d"), .date(Date(timeIntervalSince1970: 1000)))
    }

    func testTheFileIsAnXMLPropertyListWithMode0600InA0700Directory() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let url = dir.appendingPathComponent("a/b/s.plist")
        try SharedDefaults(url: url).set("v", forKey: "k")
        let text = try String(contentsOf: url, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("<?xml"), text)
        XCTAssertTrue(text.contains("<key>k</key>"))
        XCTAssertEqual(try mode(url), 0o600)
        XCTAssertEqual(try mode(url.deletingLastPathComponent()), 0o700)
        XCTAssertEqual(try mode(url.appendingPathExtension("lock")), 0o600)
    }

    func testRemovingAKeyAndReadingAMissingFile() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let suite = SharedDefaults(url: dir.appendingPathComponent("s.plist"))
        XCTAssertEqual(try suite.dictionaryRepresentation(), [:])
        XCTAssertFalse(try suite.bool(forKey: "missing"))
        try suite.set(true, forKey: "k")
        try suite.removeObject(forKey: "k")
        XCTAssertNil(try suite.value(forKey: "k"))
    }

    func testUpdateIsAReadModifyWriteOfOneKey() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let suite = SharedDefaults(url: dir.appendingPathComponent("s.plist"))
        for _ in 0..<5 {
            try suite.update("n") { $0 = .int(($0?.intValue ?? 0) + 1) }
        }
        XCTAssertEqual(try suite.value(forKey: "n"), .int(5))
    }

    func testAnErrorInsideATransactionWritesNothing() throws {
        struct Abort: Error {}
        let dir = try TestSupport.temporaryDirectory(self)
        let suite = SharedDefaults(url: dir.appendingPathComponent("s.plist"))
        try suite.set(1, forKey: "a")
        XCTAssertThrowsError(
            try suite.updateAll { dict in
                dict["a"] = 2
                dict["b"] = 3
                throw Abort()
            })
        XCTAssertEqual(try suite.dictionaryRepresentation(), ["a": 1])
    }

    func testThreadsIncrementingOneKeyLoseNoUpdate() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let url = dir.appendingPathComponent("s.plist")
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let suite = SharedDefaults(url: url)
            for _ in 0..<25 { try? suite.update("n") { $0 = .int(($0?.intValue ?? 0) + 1) } }
        }
        XCTAssertEqual(try SharedDefaults(url: url).value(forKey: "n"), .int(100))
    }

    func testACorruptFileGivesATypedErrorAndIsKeptAside() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let url = dir.appendingPathComponent("s.plist")
        let garbage = Data("<?xml version=\"1.0\"?><plist><dict><key>k</key><str".utf8)
        try garbage.write(to: url)
        let suite = SharedDefaults(url: url)
        var movedTo: String?
        XCTAssertThrowsError(try suite.value(forKey: "k")) { error in
            guard case .corruptFile(let path, let aside, _)? = error as? SharedDefaultsError else {
                return XCTFail("expected corruptFile, got \(error)")
            }
            XCTAssertEqual(path, url.path)
            XCTAssertTrue(aside.hasPrefix(url.path + ".corrupt-"), aside)
            XCTAssertTrue("\(error)".contains(url.path), "the message names the file")
            movedTo = aside
        }
        let aside = try XCTUnwrap(movedTo)
        XCTAssertEqual(FileManager.default.contents(atPath: aside), garbage, "the bad file is kept byte for byte")
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
        XCTAssertEqual(try suite.dictionaryRepresentation(), [:], "after the move the store starts empty")
        try suite.set(true, forKey: "k")
        XCTAssertEqual(try suite.value(forKey: "k"), .bool(true))
        XCTAssertEqual(FileManager.default.contents(atPath: aside), garbage)
    }

    func testAWriteToACorruptFileFailsAndKeepsTheFileAside() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let url = dir.appendingPathComponent("s.plist")
        try Data().write(to: url)
        XCTAssertThrowsError(try SharedDefaults(url: url).set(1, forKey: "k")) { error in
            guard case .corruptFile(_, let aside, let detail)? = error as? SharedDefaultsError else {
                return XCTFail("expected corruptFile, got \(error)")
            }
            XCTAssertEqual(detail, "the file is empty")
            XCTAssertTrue(FileManager.default.fileExists(atPath: aside))
        }
    }

    func testAPlistThatIsNotADictionaryIsCorrupt() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let url = dir.appendingPathComponent("s.plist")
        try PropertyListSerialization.data(fromPropertyList: ["a", "b"], format: .xml, options: 0).write(to: url)
        XCTAssertThrowsError(try SharedDefaults(url: url).dictionaryRepresentation()) { error in
            guard case .corruptFile(_, _, let detail)? = error as? SharedDefaultsError else {
                return XCTFail("expected corruptFile, got \(error)")
            }
            XCTAssertEqual(detail, "the top level is not a dictionary")
        }
    }

    func testACorruptFileThatCannotBeMovedIsLeftAloneAndReported() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let url = dir.appendingPathComponent("s.plist")
        try Data("not a plist".utf8).write(to: url)
        // A non-empty directory where the file would be moved makes rename(2) fail, even for root.
        let blocker = URL(fileURLWithPath: url.path + ".corrupt-fixed")
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: blocker.appendingPathComponent("occupied"))
        let suite = SharedDefaults(url: url, corruptSuffix: { "fixed" })
        XCTAssertThrowsError(try suite.set(1, forKey: "k")) { error in
            guard case .corruptFileNotMoved(let path, _, _)? = error as? SharedDefaultsError else {
                return XCTFail("expected corruptFileNotMoved, got \(error)")
            }
            XCTAssertEqual(path, url.path)
        }
        XCTAssertEqual(FileManager.default.contents(atPath: url.path), Data("not a plist".utf8), "nothing was lost")
        XCTAssertThrowsError(try suite.dictionaryRepresentation(), "the store never starts empty over a file it kept")
    }

    func testAnObserverIsToldOfChangesToItsKeyOnly() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let suite = SharedDefaults(url: dir.appendingPathComponent("s.plist"))
        try suite.set(0, forKey: "watched")
        let received = Received()
        let observation = try suite.observe("watched") { value in received.append(value) }
        try suite.set("noise", forKey: "other")
        try suite.set(1, forKey: "watched")
        XCTAssertTrue(received.wait(count: 1), "the change was not delivered")
        try suite.removeObject(forKey: "watched")
        XCTAssertTrue(received.wait(count: 2), "the removal was not delivered")
        observation.cancel()
        try suite.set(2, forKey: "watched")
        XCTAssertEqual(received.values, [.int(1), nil], "only changes of the key, none after cancel")
    }

    func testDroppingAnObservationWithoutCancellingStopsIt() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let suite = SharedDefaults(url: dir.appendingPathComponent("s.plist"))
        let received = Received()
        do {
            let observation = try suite.observe("k") { received.append($0) }
            try suite.set(1, forKey: "k")
            XCTAssertTrue(received.wait(count: 1))
            withExtendedLifetime(observation) {}
        }
        try suite.set(2, forKey: "k")
        try suite.set(3, forKey: "k")
        XCTAssertFalse(received.wait(count: 2, seconds: 1), "a released observation delivered \(received.values)")
        XCTAssertEqual(received.values, [.int(1)])
    }

    private func mode(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int ?? -1) & 0o777
    }
}

/// Values delivered to an observer, with a bounded wait for them (a liveness bound, not a timing assertion).
final class Received: @unchecked Sendable {
    private let condition = NSCondition()
    private var storage: [PlistValue?] = []

    func append(_ v: PlistValue?) {
        condition.lock()
        storage.append(v)
        condition.broadcast()
        condition.unlock()
    }

    var values: [PlistValue?] {
        condition.lock()
        defer { condition.unlock() }
        return storage
    }

    func wait(count: Int, seconds: TimeInterval = 10) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while storage.count < count {
            if !condition.wait(until: deadline) { return storage.count >= count }
        }
        return true
    }
}

/// The fast XML reader and writer against Foundation's, both ways, and the fallback for what it does not take on.
final class PlistXMLTests: XCTestCase {
    /// Comments between elements (as in the fixture's AppGroupConfig.plist) are read by the fast reader, to the
    /// same dictionary as Foundation's; a comment it does not take on goes to Foundation, never read differently.
    func testCommentsBetweenElementsReadAsFoundationReadsThem() throws {
        let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let read: [String] = [
            head + "<!-- c -->\n<plist version=\"1.0\"><dict><key>a</key><string>x</string></dict></plist>",
            head + "<plist version=\"1.0\">\n<!-- before --><dict>\n\t<!-- one\n two - three -->\n\t<key>a</key><!-- between --><string>x</string>\n<!---->"
                + "<key>l</key><array><!-- in --><integer>1</integer><!-- é --></array></dict><!-- after --></plist>\n<!-- end -->\n",
        ]
        for text in read {
            let data = Data(text.utf8)
            let fast = try XCTUnwrap(PlistXML.decode(data), text)
            let object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            XCTAssertEqual(PlistValue(foundation: object), .dictionary(fast), text)
        }
        let refused: [String] = [
            "<!-- before the declaration -->" + head + "<plist><dict/></plist>",
            head + "<plist><dict><!-- a -- b --><key>a</key><string>x</string></dict></plist>",
            head + "<plist><dict><!-- unterminated <key>a</key><string>x</string></dict></plist>",
            head + "<plist><dict><key>a<!-- in text --></key><string>x</string></dict></plist>",
            head + "<plist><dict><key>a</key><string>x<!-- in text --></string></dict></plist>",
            head + "<plist><dict><!-- a --->\n<key>a</key><string>x</string></dict></plist>",
        ]
        for text in refused { XCTAssertNil(PlistXML.decode(Data(text.utf8)), text) }
        XCTAssertNil(PlistXML.decode(Data(head.utf8) + Data([0x3C, 0x21, 0x2D, 0x2D, 0xFF, 0x2D, 0x2D, 0x3E]) + Data("<plist><dict/></plist>".utf8)))
    }

    let sample: [String: PlistValue] = [
        "bool": .bool(true), "no": .bool(false), "int": .int(-42), "big": .int(Int.max), "double": .double(1.5), "tiny": .double(1e-300),
        "text": .string("a & b < c > d \"q\" 'a' — ünïcødé 🎉\ttab\nline"), "empty": .string(""),
        "data": .data(Data([0, 1, 2, 255, 254])), "date": .date(Date(timeIntervalSince1970: 1_763_812_800)),
        "array": .array([.int(1), .string("two"), .array([]), .dictionary([:])]),
        "dict": .dictionary(["LastUserIdentity": .dictionary(["orgId": .string("00D1"), "userId": .string("0051")])]),
        "a&b": .string("key with an entity"),
    ]

    func testWhatItWritesFoundationReadsAndWhatFoundationWritesItReads() throws {
        let fast = try XCTUnwrap(PlistXML.encode(sample))
        let object = try PropertyListSerialization.propertyList(from: fast, options: [], format: nil)
        XCTAssertEqual(PlistValue(foundation: object), .dictionary(sample))
        let slow = try PropertyListSerialization.data(fromPropertyList: sample.mapValues(\.foundationValue), format: .xml, options: 0)
        XCTAssertEqual(PlistXML.decode(slow), sample)
        XCTAssertEqual(PlistXML.decode(fast), sample)
    }

    func testItReadsWhatPythonsPlistlibWrites() {
        let plistlib = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>d</key>
            \t<date>2026-11-22T12:00:00Z</date>
            \t<key>data</key>
            \t<data>
            \tAAEC
            \t</data>
            \t<key>f</key>
            \t<real>0.1</real>
            \t<key>s</key>
            \t<string>caf&#233; &amp; co</string>
            \t<key>userLoggedIn</key>
            \t<true/>
            </dict>
            </plist>
            """
        XCTAssertEqual(PlistXML.decode(Data(plistlib.utf8)), [
            "d": .date(Date(timeIntervalSince1970: 1_795_348_800)), "data": .data(Data([0, 1, 2])), "f": .double(0.1),
            "s": .string("café & co"), "userLoggedIn": .bool(true),
        ])
    }

    func testWhatItDoesNotTakeOnGoesToFoundation() throws {
        let cdata = Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>k</key><string><![CDATA[a<b]]></string></dict></plist>
            """.utf8)
        XCTAssertNil(PlistXML.decode(cdata))
        XCTAssertEqual(try SharedDefaults.decode(cdata).get(), ["k": .string("a<b")], "Foundation reads it")
        XCTAssertNil(PlistXML.encode(["nan": .double(.nan)]), "a non-finite number is left to Foundation")
        XCTAssertNil(PlistXML.encode(["ctl": .string("\u{1}")]), "a control character XML 1.0 cannot carry")
        XCTAssertNil(PlistXML.encode(["d": .date(Date(timeIntervalSince1970: -1e300))]), "found by fuzzing: a date no calendar year holds")
        XCTAssertNoThrow(try SharedDefaults.encode(["d": .date(Date(timeIntervalSince1970: -1e12))]), "Foundation writes what the fast writer leaves")
        for broken in ["<plist><dict><key>k</key></dict></plist>", "<plist><dict><key>k</key><integer>x</integer></dict></plist>",
                       "<plist><dict><key>k</key><string>v</string>", "<plist><dict><key>k</key><string>a</string><key>k</key><string>b</string></dict></plist>"] {
            XCTAssertNil(PlistXML.decode(Data(broken.utf8)), broken)
        }
    }

    /// Found by fuzzing (scripts/fuzz Plist, 1.3 million inputs): an end tag cut short (`</array` with no `>`)
    /// was half consumed, and the elements after it were read into the array; Foundation refuses the file.
    func testAnEndTagCutShortIsRefused() throws {
        for broken in [
            "<plist><dict><key>l</key><array><string>a</string></array<string>b</string></array></dict></plist>",
            "<plist><dict><key>d</key><dict></dict<key>x</key><string>b</string></dict></dict></plist>",
            "<plist><dict><key>k</key><string>a</string></strin></string></dict></plist>",
        ] {
            XCTAssertNil(PlistXML.decode(Data(broken.utf8)), broken)
            XCTAssertNil(try? PropertyListSerialization.propertyList(from: Data(broken.utf8), format: nil), "Foundation refuses it too: \(broken)")
        }
        let found = try Data(contentsOf: TestSupport.packageRoot.appendingPathComponent("Tests/Fuzz/Plist/corpus/regression-unclosed-end-tag"))
        XCTAssertNil(PlistXML.decode(found))
        guard case .failure(.corrupt) = SharedDefaults.decode(found) else { return XCTFail("the fuzzer's input must be refused as corrupt") }
        XCTAssertEqual(PlistXML.decode(Data("<plist><dict><key>l</key><array><string>a</string></array></dict></plist>".utf8)), ["l": .array([.string("a")])])
    }

}

/// The parsed copy of a suite's file that a process keeps (`ParsedCache`).
final class SharedDefaultsParsedCopyTests: XCTestCase {

    /// Every instance naming one file shares the process's parsed copy of it (a launch makes several instances of
    /// one suite, and each parsed the file again).
    func testInstancesOfOneFileShareOneParsedCopy() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let file = dir.appendingPathComponent("s.plist")
        XCTAssertTrue(ParsedCache.forFile(file.path) === ParsedCache.forFile(file.path))
        XCTAssertFalse(ParsedCache.forFile(file.path) === ParsedCache.forFile(dir.appendingPathComponent("t.plist").path))
        try SharedDefaults(url: file).set("a", forKey: "k")
        XCTAssertEqual(try SharedDefaults(url: file).string(forKey: "k"), "a")
    }

    /// The registry of copies stays bounded however many files a long-lived process reads, and a suite still
    /// reads right after its copy was dropped.
    func testTheRegistryOfCopiesStaysBounded() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let file = dir.appendingPathComponent("s.plist")
        let suite = SharedDefaults(url: file)
        try suite.set("a", forKey: "k")
        for n in 0..<(ParsedCache.registryBound * 2 + 3) { _ = ParsedCache.forFile(dir.appendingPathComponent("f\(n).plist").path) }
        XCTAssertLessThanOrEqual(ParsedCache.registeredFiles, ParsedCache.registryBound)
        XCTAssertEqual(try suite.string(forKey: "k"), "a")
        XCTAssertEqual(try SharedDefaults(url: file).string(forKey: "k"), "a")
    }

    /// A file replaced within the file system's clock tick, by a writer that reused the inode and kept the size,
    /// looks the same as the one parsed: a copy of a file that young is never kept, so the new value is read.
    /// (Seen failing without `isRacy`: the second read gave the first value.)
    func testAFileRewrittenWithinOneClockTickIsReadAgain() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let file = dir.appendingPathComponent("s.plist")
        let suite = SharedDefaults(url: file)
        try suite.set("a", forKey: "k")
        // The file's time is set a second ahead, so that however slow this machine is, the read below sees a file
        // younger than one tick.
        var times = [timespec(tv_sec: time(nil) + 1, tv_nsec: 0), timespec(tv_sec: time(nil) + 1, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, file.path, &times, 0), 0)
        XCTAssertEqual(try SharedDefaults(url: file).string(forKey: "k"), "a")
        // Another writer: the same inode, the same size, the same time.
        let data = try Data(contentsOf: file)
        let changed = Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: "<string>a</string>", with: "<string>b</string>").utf8)
        XCTAssertEqual(changed.count, data.count)
        let handle = try FileHandle(forWritingTo: file)
        try handle.write(contentsOf: changed)
        try handle.close()
        XCTAssertEqual(utimensat(AT_FDCWD, file.path, &times, 0), 0)
        XCTAssertEqual(try SharedDefaults(url: file).string(forKey: "k"), "b")
        XCTAssertEqual(try suite.string(forKey: "k"), "b")
    }

    /// A file older than a tick is parsed once, and read from the copy while it stays the same file.
    func testAnOldFileIsParsedOnceAndAReplacementIsSeen() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let file = dir.appendingPathComponent("s.plist")
        try SharedDefaults(url: file).set("a", forKey: "k")
        var times = [timespec(tv_sec: time(nil) - 60, tv_nsec: 0), timespec(tv_sec: time(nil) - 60, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, file.path, &times, 0), 0)
        XCTAssertEqual(try SharedDefaults(url: file).string(forKey: "k"), "a")
        let identity = try XCTUnwrap(FileIdentity(file))
        XCTAssertFalse(identity.isRacy)
        XCTAssertEqual(ParsedCache.forFile(file.path).lookup(identity)?["k"], "a")
        // Another process's write renames a new file into place: a new identity, read again.
        let other = dir.appendingPathComponent("other.plist")
        try SharedDefaults(url: other).set("b", forKey: "k")
        XCTAssertEqual(rename(other.path, file.path), 0)
        XCTAssertEqual(try SharedDefaults(url: file).string(forKey: "k"), "b")
    }
}
