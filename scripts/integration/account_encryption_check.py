"""Reads what the app wrote with outside tools only: the account key from the Secret Service
(SecretStorage over D-Bus), UserAccount.plist opened with AES-256-GCM (cryptography), its property list
and LastUserIdentity's keyed archive (plistlib). Prints one JSON line; exits 1 with a reason otherwise."""
import json
import plistlib
import sys

import secretstorage
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

account_file, suite_file, key_service = sys.argv[1], sys.argv[2], sys.argv[3]

bus = secretstorage.dbus_init()
items = list(secretstorage.search_items(bus, {"service": key_service}))
if len(items) != 1:
    sys.exit(f"expected one key item for {key_service}, found {len(items)}")
item = items[0]
if item.is_locked():
    item.unlock()
key = item.get_secret()
group = item.get_attributes().get("accessGroup")
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
