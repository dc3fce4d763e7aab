// The SDK's EncryptStreamTests and DecryptStreamTests (libs/SalesforceSDKCore/SalesforceSDKCoreTests at aea9bf3),
// rewritten against the SDK-named products: streams to memory, buffers and files; no key is an error; the chunked
// AES-GCM format (a first sealed chunk opens with CryptoKit alone); several chunks round-trip; a read into a small
// buffer keeps the rest for the next read (the SDK would write past such a buffer).
import CryptoKit
import Foundation
import SalesforceSDKCore
import XCTest

final class CryptStreamTests: XCTestCase {
    let key = SymmetricKey(size: .bits256)
    let testData = Data("Hello, Salesforce Mobile SDK! This is a test of the EncryptStream.".utf8)

    func encrypted(_ plain: Data) -> Data {
        let stream = EncryptStream(toMemory: ())
        stream.setupEncryptionKey(key: key)
        stream.open()
        let written = plain.withUnsafeBytes { stream.write($0.bindMemory(to: UInt8.self).baseAddress!, maxLength: plain.count) }
        stream.close()
        XCTAssertEqual(written, plain.count)
        return stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data ?? Data()
    }

    func testInits() throws {
        var buffer = [UInt8](repeating: 0, count: 1024)
        XCTAssertNotNil(EncryptStream(toBuffer: &buffer, capacity: buffer.count))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: url) }
        XCTAssertNotNil(EncryptStream(url: url, append: false))
        XCTAssertNotNil(EncryptStream(toFileAtPath: url.path, append: false))
        XCTAssertNotNil(DecryptStream(data: Data()))
        try Data().write(to: url)
        XCTAssertNotNil(DecryptStream(url: url))
        XCTAssertNotNil(DecryptStream(fileAtPath: url.path))
    }

    func testWithoutAKeyOpenWriteAndReadFail() {
        let output = EncryptStream(toMemory: ())
        output.open()
        XCTAssertNotNil(output.streamError)
        XCTAssertEqual(testData.withUnsafeBytes { output.write($0.bindMemory(to: UInt8.self).baseAddress!, maxLength: testData.count) }, -1)
        output.close()
        let input = DecryptStream(data: encrypted(testData))
        input.open()
        XCTAssertNotNil(input.streamError)
        var buffer = [UInt8](repeating: 0, count: 1024)
        XCTAssertEqual(input.read(&buffer, maxLength: buffer.count), -1)
    }

    func testTheFormatIsOneSealedBoxPerChunk() throws {
        let sealed = encrypted(testData)
        XCTAssertEqual(sealed.count, testData.count + 28, "one chunk: nonce, ciphertext, tag")
        XCTAssertEqual(try AES.GCM.open(try AES.GCM.SealedBox(combined: sealed), using: key), testData)
        XCTAssertEqual(encrypted(Data(repeating: 1, count: 1100)).count, 2 * 540 + 76 + 28, "512 + 512 + 76 bytes")
    }

    func testReadAndDecryptMemoryAndSeveralChunks() {
        for plain in [testData, Data(repeating: 0xAB, count: 2048)] {
            let stream = DecryptStream(data: encrypted(plain))
            stream.setupEncryptionKey(key: key)
            stream.open()
            XCTAssertTrue(stream.hasBytesAvailable)
            XCTAssertNil(stream.streamError)
            var buffer = [UInt8](repeating: 0, count: plain.count)
            XCTAssertEqual(stream.read(&buffer, maxLength: buffer.count), plain.count)
            XCTAssertEqual(Data(buffer), plain)
            stream.close()
        }
    }

    func testASmallBufferGetsEverythingOverSeveralReads() {
        let plain = Data((0..<1300).map { UInt8($0 % 251) })
        let stream = DecryptStream(data: encrypted(plain))
        stream.setupEncryptionKey(key: key)
        stream.open()
        var out = Data()
        var buffer = [UInt8](repeating: 0, count: 100)
        while true {
            let n = stream.read(&buffer, maxLength: buffer.count)
            if n <= 0 { break }
            XCTAssertLessThanOrEqual(n, 100)
            out.append(contentsOf: buffer[0..<n])
        }
        XCTAssertEqual(out, plain)
    }

    func testAnotherKeyIsAnError() {
        let stream = DecryptStream(data: encrypted(testData))
        stream.setupEncryptionKey(key: SymmetricKey(size: .bits256))
        stream.open()
        var buffer = [UInt8](repeating: 0, count: 1024)
        XCTAssertEqual(stream.read(&buffer, maxLength: buffer.count), -1)
        XCTAssertNotNil(stream.streamError)
    }
}
