"""Reads what the app wrote with outside tools only: the account key from the Secret Service
(SecretStorage over D-Bus), unwrapped with the EC key pair's private half as Apple's
eciesEncryptionStandardX963SHA256AESGCM defines it (cryptography: ECDH on P-256, X9.63 KDF, AES-GCM),
UserAccount.plist opened with AES-256-GCM, its property list and LastUserIdentity's keyed archive (plistlib).
Prints one JSON line; exits 1 with a reason otherwise."""
import base64
import json
import plistlib
import sys

import secretstorage
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF


def ecies_open(sealed, private_key, hash_algorithm):
    """Apple's ECIES "Standard" X9.63 AES-GCM with an all-zero 16-byte IV, for keys of 256 bits or less: the
    ephemeral public key (65 bytes) is the KDF's shared info; the KDF gives a 16-byte AES key; a 16-byte tag."""
    ephemeral = sealed[:65]
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), ephemeral)
    shared = private_key.exchange(ec.ECDH(), public)
    key = X963KDF(algorithm=hash_algorithm, length=16, sharedinfo=ephemeral).derive(shared)
    return AESGCM(key).decrypt(b"\0" * 16, sealed[65:], None)


# First, that this reading of the algorithm is Apple's: a ciphertext made by Security.framework
# (SecKeyCreateEncryptedData, .eciesEncryptionCofactorX963SHA224AESGCM, a P-256 key; the cofactor of P-256 is 1, so
# it agrees as the Standard variant does), published as a test vector of github.com/jedda/ECIES (MIT). Only the
# hash differs from the SDK's algorithm (SHA-224 there, SHA-256 here).
APPLE_KEY = ("MHcCAQEEIJyzfcyptwjYkgdcFhfJlztLPmcfyzyCFs7NoQuCbAAhoAoGCCqGSM49AwEHoUQDQgAE7WttwmG8qki5bU2utMaugBWbWD9Jx/UPzgnGxthgHteyq"
             "PGofBjBwPZTbxj+lrIGNyHRdbOkSusD7051WG8nmg==")
APPLE_CIPHERTEXT = ("BPIMheQOrz0l9wEjcOHQEQ16D9Go8Sm8bEM3LAgMEHUf/eHy3u0oVlfh2po9ocPCuKG2bQ28wlsQ0N6SNJ3O3auS/QeoUogLVcJ3+R1OOeixEJyqeUkn6zB8"
                    "LcqoZ+Y2")
apple_key = serialization.load_der_private_key(base64.b64decode(APPLE_KEY), password=None)
if ecies_open(base64.b64decode(APPLE_CIPHERTEXT), apple_key, hashes.SHA224()) != b"P256-SHA224-0IV":
    sys.exit("the ECIES reading does not open Apple's own ciphertext")

account_file, suite_file, key_service = sys.argv[1], sys.argv[2], sys.argv[3]

bus = secretstorage.dbus_init()


def one_secret(service):
    items = list(secretstorage.search_items(bus, {"service": service}))
    if len(items) != 1:
        sys.exit(f"expected one item for {service}, found {len(items)}")
    if items[0].is_locked():
        items[0].unlock()
    return items[0]


item = one_secret(key_service)
wrapped = item.get_secret()
group = item.get_attributes().get("accessGroup")
pair = one_secret("com.salesforce.eckey.private.defaultKey")
if pair.get_attributes().get("accessible") != "afterFirstUnlockThisDeviceOnly":
    sys.exit(f"the EC key pair's class is {pair.get_attributes().get('accessible')}")
private_key = ec.derive_private_key(int.from_bytes(pair.get_secret(), "big"), ec.SECP256R1())
if len(wrapped) != 65 + 32 + 16:
    sys.exit(f"the key item is {len(wrapped)} bytes, not a wrapped 256-bit key")
key = ecies_open(wrapped, private_key, hashes.SHA256())
if len(key) != 32:
    sys.exit(f"the key is {len(key)} bytes, not 256 bits")

sealed = open(account_file, "rb").read()
try:
    plistlib.loads(sealed)
    sys.exit("UserAccount.plist parses as a plain property list: it is not encrypted")
except Exception:
    pass
nonce, body = sealed[:12], sealed[12:]
plain = AESGCM(key).decrypt(nonce, body, None)
account = plistlib.loads(plain)
for k in ["accessScopes", "credentials", "idData", "customData", "accessRestrictions", "notificationTypes"]:
    if k not in account:
        sys.exit(f"the decrypted account lacks the SDK's key {k}: {sorted(account)}")
creds = account["credentials"]
for k in ["SFOAuthIdentifier", "SFOAuthClientId", "SFOAuthOrganizationId", "SFOAuthIdentityUrl", "SFOAuthInstanceUrl", "SFOAuthDomain"]:
    if k not in creds:
        sys.exit(f"credentials lacks {k}: {sorted(creds)}")

# One changed byte: the tag no longer matches.
tampered = bytearray(sealed)
tampered[20] ^= 1
try:
    AESGCM(key).decrypt(bytes(tampered[:12]), bytes(tampered[12:]), None)
    sys.exit("a changed byte still decrypted")
except Exception:
    pass

suite = plistlib.load(open(suite_file, "rb"))
archive = plistlib.loads(suite["LastUserIdentity"])


def ref(value):
    """A keyed archive's object reference: UID(n) in the binary form, {"CF$UID": n} in the XML form."""
    return value.data if isinstance(value, plistlib.UID) else value["CF$UID"]


objects = archive["$objects"]
top = objects[ref(archive["$top"]["LastUserIdentity"])]
classname = objects[ref(top["$class"])]["$classname"]
identity = {"userIdKey": objects[ref(top["userIdKey"])], "orgIdKey": objects[ref(top["orgIdKey"])]}

print(json.dumps({
    "group": group, "archiver": archive["$archiver"], "class": classname, "identity": identity,
    "username": account["idData"].get("username"), "orgId": creds["SFOAuthOrganizationId"],
    "plaintext_has_token": b"refresh" in plain.lower() and b"token" in plain.lower(),
}))
