import Foundation

// libFuzzer entry for the shared-defaults reader (SharedDefaults.decode in Sources/AppGroup) and the device
// backup reader (DeviceBackupArchive.decode): any
// bytes must decode to a dictionary or be refused as corrupt, never crash; what decodes must encode.
// The fast XML reader (PlistXML) is checked against Foundation: what it reads, Foundation must read
// to the same dictionary, and its own output must read back to the same dictionary.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    if case .success(let dict) = SharedDefaults.decode(bytes) {
        _ = try? SharedDefaults.encode(dict)
    }
    if let fast = PlistXML.decode(bytes) {
        guard let object = try? PropertyListSerialization.propertyList(from: bytes, options: [], format: nil),
            case .dictionary(let slow)? = PlistValue(foundation: object)
        else { fatalError("PlistXML read what Foundation refuses") }
        guard fast == slow else { fatalError("PlistXML and Foundation read different dictionaries") }
        if let again = PlistXML.encode(fast) {
            guard PlistXML.decode(again) == fast else { fatalError("PlistXML's output does not read back") }
        }
    }
    // LastUserIdentity is a keyed archive (binary plist with UIDs) read from msdkUserDefaults: the
    // structural check with UIDs allowed must stop every input that Foundation would crash on.
    if bytes.starts(with: Array("bplist".utf8)), let object = try? PlistValue.foundationPropertyList(from: bytes, keyedArchive: true) {
        _ = try? PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0)
    }
    // A device backup (msdk-sim device restore) is outside input too: read or refused by name, never a crash;
    // what reads writes again and reads back to the same files.
    // A budget of 64 MB: an input that names one value many times is refused before it is decoded.
    if case .success(let archive) = DeviceBackupArchive.decode(bytes, memoryBudget: 64_000_000) {
        guard let again = try? archive.encoded(), case .success(let back) = DeviceBackupArchive.decode(again, memoryBudget: 64_000_000) else {
            fatalError("a backup that reads does not write and read back")
        }
        guard back.Contents == archive.Contents, back.Files?.count == archive.Files?.count else { fatalError("a backup read back differs") }
    }
    return 0
}
