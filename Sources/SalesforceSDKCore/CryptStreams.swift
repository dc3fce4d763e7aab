import CoreEngine
import Foundation

/// The SDK's `EncryptStream` (`SFSDKEncryptStream`): an `OutputStream` that writes what it is given to another
/// stream (memory, a buffer, a file) in the SDK's chunked AES-GCM format (`CoreEngine.CryptStream`). Call
/// `setupEncryptionKey(key:)` before `open()`; without a key, `open()` and `write` fail with `streamError`.
public class EncryptStream: OutputStream {
    private var key: SymmetricKey?
    private var encoder: CryptStream.Encoder?
    private let stream: OutputStream
    private var error: Error?

    public override var streamStatus: Stream.Status { stream.streamStatus }
    public override var hasSpaceAvailable: Bool { stream.hasSpaceAvailable }
    /// Its own error, else the underlying stream's: asked only when that stream says it failed (Foundation on Linux
    /// stops the process when a stream without an error is asked for it).
    public override var streamError: Error? { error ?? (stream.streamStatus == .error ? stream.streamError : nil) }

    public required init(toMemory: ()) {
        stream = OutputStream(toMemory: ())
        super.init(toMemory: ())
    }

    public override init(toBuffer buffer: UnsafeMutablePointer<UInt8>, capacity: Int) {
        stream = OutputStream(toBuffer: buffer, capacity: capacity)
        super.init(toBuffer: buffer, capacity: capacity)
    }

    public override init?(url: URL, append shouldAppend: Bool) {
        guard let output = OutputStream(url: url, append: shouldAppend) else { return nil }
        stream = output
        super.init(url: url, append: shouldAppend)
    }

    public convenience init?(toFileAtPath path: String, append shouldAppend: Bool) {
        self.init(url: URL(fileURLWithPath: path), append: shouldAppend)
    }

    /// Always call this before using the stream.
    public func setupEncryptionKey(key: SymmetricKey) {
        self.key = key
        encoder = CryptStream.Encoder(key: key)
    }

    public override func property(forKey key: Stream.PropertyKey) -> AnyObject? { stream.property(forKey: key) }

    static var noKey: NSError { NSError(domain: "EncryptStream", code: 1, userInfo: [NSLocalizedDescriptionKey: "Encryption key not set."]) }

    public override func open() {
        guard key != nil else {
            error = Self.noKey
            return
        }
        error = nil
        stream.open()
    }

    public override func write(_ buffer: UnsafePointer<UInt8>, maxLength len: Int) -> Int {
        guard key != nil, var encoder else {
            error = Self.noKey
            return -1
        }
        do {
            for sealed in try encoder.feed(UnsafeBufferPointer(start: buffer, count: len)) {
                _ = sealed.withUnsafeBytes { stream.write($0.bindMemory(to: UInt8.self).baseAddress!, maxLength: sealed.count) }
            }
            self.encoder = encoder
            return len
        } catch {
            SalesforceLogger.e(EncryptStream.self, message: "Error encrypting data: \(error)")
            self.error = error
            return -1
        }
    }

    public override func close() {
        defer { stream.close() }
        error = nil
        do {
            if let sealed = try encoder?.finish() {
                _ = sealed.withUnsafeBytes { stream.write($0.bindMemory(to: UInt8.self).baseAddress!, maxLength: sealed.count) }
            }
        } catch {
            SalesforceLogger.e(EncryptStream.self, message: "Error encrypting data to stream: \(error)")
            self.error = error
        }
    }
}

/// The SDK's `DecryptStream` (`SFSDKDecryptStream`): an `InputStream` that reads the SDK's chunked AES-GCM format
/// from another stream (data, a file) and gives the plaintext (`CoreEngine.CryptStream.Decoder`). Call
/// `setupEncryptionKey(key:)` before `open()`. One difference, on purpose: the SDK copies a whole opened chunk (up
/// to 512 bytes) into a buffer smaller than that; here what does not fit is kept for the next `read`.
public class DecryptStream: InputStream {
    private var key: SymmetricKey?
    private var decoder: CryptStream.Decoder?
    private let stream: InputStream
    private var error: Error?

    public override var streamStatus: Stream.Status { stream.streamStatus }
    public override var hasBytesAvailable: Bool { decoder?.hasPending == true || stream.hasBytesAvailable }
    /// Its own error, else the underlying stream's: asked only when that stream says it failed (Foundation on Linux
    /// stops the process when a stream without an error is asked for it).
    public override var streamError: Error? { error ?? (stream.streamStatus == .error ? stream.streamError : nil) }

    public override init(data: Data) {
        stream = InputStream(data: data)
        super.init(data: data)
    }

    public override init?(url: URL) {
        guard let input = InputStream(url: url) else { return nil }
        stream = input
        super.init(url: url)
    }

    public convenience init?(fileAtPath path: String) { self.init(url: URL(fileURLWithPath: path)) }

    /// Always call this before using the stream.
    public func setupEncryptionKey(key: SymmetricKey) {
        self.key = key
        decoder = CryptStream.Decoder(key: key)
    }

    static var noKey: NSError { NSError(domain: "DecryptStream", code: 1, userInfo: [NSLocalizedDescriptionKey: "Decryption key not set."]) }

    public override func open() {
        guard key != nil else {
            error = Self.noKey
            return
        }
        error = nil
        stream.open()
    }

    public override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard var decoder else {
            error = Self.noKey
            return -1
        }
        let (given, failure) = decoder.read(into: buffer, maxLength: len) { stream.read($0, maxLength: $1) }
        self.decoder = decoder
        if let failure {
            SalesforceLogger.e(DecryptStream.self, message: "Error decrypting data to stream: \(failure)")
            error = failure == .chunkTooLarge ? NSError(domain: "DecryptStream", code: 2, userInfo: [NSLocalizedDescriptionKey: failure.description]) : failure
        }
        guard given > 0 else { return error == nil ? 0 : -1 }
        return given
    }

    public override func property(forKey key: Stream.PropertyKey) -> AnyObject? { stream.property(forKey: key) }

    public override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>) -> Bool { false }

    public override func close() {
        stream.close()
        error = nil
    }
}
