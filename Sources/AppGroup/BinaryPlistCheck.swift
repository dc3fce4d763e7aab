import Foundation

/// A structural check of a binary property list (`bplist00`) before Foundation parses it.
///
/// corelibs Foundation's binary reader trusts its input: scripts/fuzz found a 121-byte file with a
/// set of bad object references that makes `PropertyListSerialization` crash the process (SIGSEGV
/// while bridging the set). A shared-defaults file is outside input (another process, a user, a
/// restored backup), so it is walked here first: the trailer, the offset table, every object's
/// bounds, references and type, with no sets, no UIDs, string keys only, and no cycles. Only the
/// types `PlistValue` holds pass. What passes is then parsed by Foundation as before.
enum BinaryPlistCheck {
    static let magic = Array("bplist00".utf8)
    /// Foundation takes any `bplist0?` header as binary; every such file is checked, and only version 00 passes.
    static let prefix = Array("bplist".utf8)

    /// Nil when the bytes are a well-formed binary plist of plist types; otherwise why not. With
    /// `allowUIDs`, the UIDs of a keyed archive (`NSKeyedArchiver`) are accepted too.
    static func problem(_ data: Data, allowUIDs: Bool = false) -> String? { problem([UInt8](data), allowUIDs: allowUIDs) }

    /// `problem` of bytes already copied out of their `Data` (a backup reads them twice: once checked, once measured).
    static func problem(_ bytes: [UInt8], allowUIDs: Bool = false) -> String? {
        guard bytes.count >= magic.count + 32, Array(bytes[0..<8]) == magic else { return "not a bplist00 header and trailer" }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let refSize = Int(bytes[trailer + 7])
        let count = be(bytes, trailer + 8, 8)
        let top = be(bytes, trailer + 16, 8)
        let tableStart = be(bytes, trailer + 24, 8)
        guard (1...8).contains(offsetSize), (1...8).contains(refSize) else { return "bad integer sizes in the trailer" }
        guard count > 0, count < UInt64(bytes.count), top < count else { return "bad object count or top object" }
        guard tableStart >= 8, tableStart < UInt64(trailer), UInt64(trailer) - tableStart >= count * UInt64(offsetSize) else {
            return "the offset table is out of bounds"
        }
        let objects = Int(count)
        var offsets = [Int](repeating: 0, count: objects)
        for n in 0..<objects {
            let offset = be(bytes, Int(tableStart) + n * offsetSize, offsetSize)
            guard offset >= 8, offset < tableStart else { return "object \(n) starts outside the object area" }
            offsets[n] = Int(offset)
        }
        var checker = Walker(bytes: bytes, end: Int(tableStart), offsets: offsets, refSize: refSize, allowUIDs: allowUIDs)
        // Every object in the table, reachable or not: Foundation may read them all.
        for object in [Int(top)] + Array(0..<objects) {
            if let problem = checker.check(object, depth: 0) { return problem }
        }
        return nil
    }

    /// The bytes of data and strings a decoder makes of the list: every reference followed, so an object that
    /// several containers name counts once for each (a 1 MB value that 2,000 entries name is 2 GB decoded).
    /// Only for a list `problem` passed (no cycles, every reference in bounds); saturates instead of overflowing.
    static func expandedBytes(_ bytes: [UInt8]) -> UInt64 {
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let count = Int(be(bytes, trailer + 8, 8))
        let tableStart = Int(be(bytes, trailer + 24, 8))
        let offsets = (0..<count).map { Int(be(bytes, tableStart + $0 * offsetSize, offsetSize)) }
        let walker = Walker(bytes: bytes, end: tableStart, offsets: offsets, refSize: Int(bytes[trailer + 7]), allowUIDs: true)
        var known = [Int: UInt64]()
        func size(_ object: Int) -> UInt64 {
            if let size = known[object] { return size }
            let start = offsets[object]
            let marker = bytes[start]
            var total: UInt64 = 0
            func add(_ n: UInt64) {
                let (sum, overflow) = total.addingReportingOverflow(n)
                total = overflow ? .max : sum
            }
            switch marker >> 4 {
            case 0x4, 0x5: add(UInt64(walker.length(at: start, marker: marker)?.0 ?? 0))
            case 0x6: add(2 * UInt64(walker.length(at: start, marker: marker)?.0 ?? 0))
            case 0xA, 0xD:
                guard let (n, payload) = walker.length(at: start, marker: marker),
                    let children = walker.refs(payload, marker >> 4 == 0xD ? 2 * n : n)
                else { break }
                for child in children { add(size(child)) }
            default: break
            }
            known[object] = total
            return total
        }
        return size(Int(be(bytes, trailer + 16, 8)))
    }

    static func be(_ b: [UInt8], _ at: Int, _ size: Int) -> UInt64 {
        guard at >= 0, size > 0, at + size <= b.count else { return .max }
        var v: UInt64 = 0
        for i in at..<at + size { v = v << 8 | UInt64(b[i]) }
        return v
    }

    struct Walker {
        let bytes: [UInt8]
        let end: Int
        let offsets: [Int]
        let refSize: Int
        var onPath = Set<Int>()
        var allowUIDs = false
        var done = Set<Int>()

        /// The object's length field: the low nibble, or an int object after the marker when it is 0xF.
        /// Returns the count and where the payload starts.
        func length(at start: Int, marker: UInt8) -> (Int, Int)? {
            let low = Int(marker & 0x0F)
            guard low == 0x0F else { return (low, start + 1) }
            guard start + 1 < end else { return nil }
            let intMarker = bytes[start + 1]
            guard intMarker & 0xF0 == 0x10 else { return nil }
            let size = 1 << Int(intMarker & 0x0F)
            guard size <= 8, start + 2 + size <= end else { return nil }
            let n = be(bytes, start + 2, size)
            guard n < UInt64(end) else { return nil }
            return (Int(n), start + 2 + size)
        }

        func refs(_ at: Int, _ n: Int) -> [Int]? {
            guard n >= 0, at + n * refSize <= end else { return nil }
            var out: [Int] = []
            out.reserveCapacity(n)
            for i in 0..<n {
                let r = be(bytes, at + i * refSize, refSize)
                guard r < UInt64(offsets.count) else { return nil }
                out.append(Int(r))
            }
            return out
        }

        mutating func check(_ object: Int, depth: Int) -> String? {
            guard depth < 512 else { return "nested too deep" }
            if done.contains(object) { return nil }
            guard onPath.insert(object).inserted else { return "object \(object) contains itself" }
            defer {
                onPath.remove(object)
                done.insert(object)
            }
            let start = offsets[object]
            let marker = bytes[start]
            switch marker >> 4 {
            case 0x0:
                return [0x00, 0x08, 0x09].contains(marker) ? nil : "object \(object): unknown marker"
            case 0x1:
                let size = 1 << Int(marker & 0x0F)
                return size <= 16 && start + 1 + size <= end ? nil : "object \(object): bad integer"
            case 0x2:
                let size = 1 << Int(marker & 0x0F)
                return (size == 4 || size == 8) && start + 1 + size <= end ? nil : "object \(object): bad real"
            case 0x3:
                return marker == 0x33 && start + 9 <= end ? nil : "object \(object): bad date"
            case 0x4, 0x5:
                guard let (n, payload) = length(at: start, marker: marker), payload + n <= end else { return "object \(object): out of bounds" }
                return nil
            case 0x6:
                guard let (n, payload) = length(at: start, marker: marker), payload + 2 * n <= end else { return "object \(object): out of bounds" }
                return nil
            case 0x8 where allowUIDs:
                // A UID: the low nibble + 1 bytes of integer.
                return start + 2 + Int(marker & 0x0F) <= end ? nil : "object \(object): bad UID"
            case 0xA:
                guard let (n, payload) = length(at: start, marker: marker), let children = refs(payload, n) else {
                    return "object \(object): bad array"
                }
                for child in children { if let p = check(child, depth: depth + 1) { return p } }
                return nil
            case 0xD:
                guard let (n, payload) = length(at: start, marker: marker), let keys = refs(payload, n),
                    let values = refs(payload + n * refSize, n)
                else { return "object \(object): bad dictionary" }
                for key in keys {
                    let k = bytes[offsets[key]] >> 4
                    guard k == 0x5 || k == 0x6 else { return "object \(object): a key that is not a string" }
                    if let p = check(key, depth: depth + 1) { return p }
                }
                for value in values { if let p = check(value, depth: depth + 1) { return p } }
                return nil
            default:
                return "object \(object): a type property lists of defaults do not hold (set, UID or unknown)"
            }
        }
    }
}
