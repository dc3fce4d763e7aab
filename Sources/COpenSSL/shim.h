// The system OpenSSL's libcrypto (Debian's libssl-dev), for the one RSA mode swift-crypto does not offer:
// PKCS#1 v1.5 encryption, which Salesforce used for push secrets before CipherName RSA_OAEP_SHA256 (the SDK
// 12 decrypts it as a fallback). The org encrypts with it (OrgSimulator/Push/PushEncryption.swift); the
// client's fallback loads libcrypto only when it needs it (CoreEngine/LegacyRSA.swift).
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/err.h>
