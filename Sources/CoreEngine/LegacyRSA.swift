import Foundation
import _CryptoExtras

#if canImport(Glibc)
import Glibc
#endif

/// RSA PKCS#1 v1.5 decryption, the SDK 12's fallback for a push secret that is not RSA-OAEP (SHA-256):
/// `SFSDKPushNotificationDecryption` tries `kSecKeyAlgorithmRSAEncryptionOAEPSHA256`, then
/// `kSecKeyAlgorithmRSAEncryptionPKCS1`. swift-crypto decrypts OAEP only, so this is the system OpenSSL's
/// libcrypto (never a hand-rolled RSA). It is loaded with `dlopen` the first time a secret needs it, not linked:
/// linking libcrypto.so.3 costs every process that links this module about 0.55 ms at start (a C program's
/// median start on this machine, 0.64 ms without it and 1.19 ms with it), and the widget never decrypts.
package enum LegacyRSA {
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// libcrypto could not be loaded (not installed: `apt-get install libssl3`).
        case libraryMissing(String)
        /// The padding or the key did not match: not a PKCS#1 v1.5 secret for this key.
        case decryptionFailed

        package var description: String {
            switch self {
            case .libraryMissing(let why): return "the system OpenSSL (libcrypto.so.3) is needed for a PKCS#1 v1.5 push secret and could not be loaded: \(why); install it with apt-get install libssl3"
            case .decryptionFailed: return "RSA PKCS#1 v1.5 decryption failed"
            }
        }
    }

    private typealias D2IPrivateKey = @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, Int) -> OpaquePointer?
    private typealias ContextNew = @convention(c) (OpaquePointer?, OpaquePointer?) -> OpaquePointer?
    private typealias ContextInit = @convention(c) (OpaquePointer?) -> Int32
    private typealias SetPadding = @convention(c) (OpaquePointer?, Int32) -> Int32
    private typealias Decrypt = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>?, UnsafePointer<UInt8>?, Int) -> Int32
    private typealias Free = @convention(c) (OpaquePointer?) -> Void

    private struct Functions: @unchecked Sendable {
        let d2iPrivateKey: D2IPrivateKey
        let contextNew: ContextNew
        let decryptInit: ContextInit
        let setPadding: SetPadding
        let decrypt: Decrypt
        let contextFree: Free
        let keyFree: Free
    }

    /// `RSA_PKCS1_PADDING` in <openssl/rsa.h>.
    private static let pkcs1Padding: Int32 = 1

    private static let functions: Result<Functions, Failure> = {
        guard let handle = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL) else {
            return .failure(.libraryMissing(dlerror().map { String(cString: $0) } ?? "dlopen failed"))
        }
        func symbol<T>(_ name: String, _: T.Type) -> T? {
            dlsym(handle, name).map { unsafeBitCast($0, to: T.self) }
        }
        guard let d2i = symbol("d2i_AutoPrivateKey", D2IPrivateKey.self), let new = symbol("EVP_PKEY_CTX_new", ContextNew.self),
            let initialise = symbol("EVP_PKEY_decrypt_init", ContextInit.self),
            let padding = symbol("EVP_PKEY_CTX_set_rsa_padding", SetPadding.self), let decrypt = symbol("EVP_PKEY_decrypt", Decrypt.self),
            let contextFree = symbol("EVP_PKEY_CTX_free", Free.self), let keyFree = symbol("EVP_PKEY_free", Free.self)
        else { return .failure(.libraryMissing("a function is missing from libcrypto.so.3")) }
        return .success(Functions(
            d2iPrivateKey: d2i, contextNew: new, decryptInit: initialise, setPadding: padding, decrypt: decrypt, contextFree: contextFree,
            keyFree: keyFree))
    }()

    /// `ciphertext` decrypted with `privateKey` and PKCS#1 v1.5 padding.
    package static func decryptPKCS1(_ ciphertext: Data, privateKey: _RSA.Encryption.PrivateKey) throws(Failure) -> Data {
        let f: Functions
        switch functions {
        case .success(let loaded): f = loaded
        case .failure(let failure): throw failure
        }
        let der = Array(privateKey.derRepresentation)
        let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return f.d2iPrivateKey(nil, &cursor, buffer.count)
        }
        guard let key else { throw .decryptionFailed }
        defer { f.keyFree(key) }
        guard let context = f.contextNew(key, nil) else { throw .decryptionFailed }
        defer { f.contextFree(context) }
        guard f.decryptInit(context) == 1, f.setPadding(context, pkcs1Padding) == 1 else { throw .decryptionFailed }
        let input = Array(ciphertext)
        var length = 0
        guard f.decrypt(context, nil, &length, input, input.count) == 1 else { throw .decryptionFailed }
        var output = [UInt8](repeating: 0, count: length)
        guard f.decrypt(context, &output, &length, input, input.count) == 1 else { throw .decryptionFailed }
        return Data(output.prefix(length))
    }
}
