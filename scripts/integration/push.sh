#!/usr/bin/env bash
# Push notifications end to end, with real processes, a real keyring and the org on loopback: the app
# registers alice's device at login (trace), the org's gateway encrypts a notification with the device's
# public key and delivers it, the notification service extension (a second extension, its own bundle)
# decrypts it with the private key it reads through the shared keychain group. Then every way it fails:
# an extension without the group, no Secret Service, bad payloads, logout (nothing delivered). No file on
# the device holds the notification's body or the private key.
APPGROUPSIM_NEEDS_KEYRING=1 source "$(dirname "$0")/../lib/integration.sh"
source "$ROOT/scripts/lib/common.sh"
PY=$(ensure_python_venv)
DEV="$WORK/device"
NSE="$APP/PlugIns/NotificationService.appex"
BUNDLE_ID=com.salesforce.mobilesdk.MobileSyncExplorer
INBOX="$DEV/Notifications/$BUNDLE_ID/inbox"
DELIVERED="$DEV/Notifications/$BUNDLE_ID/delivered"
BODY_TEXT="Acme needs a call back before noon"
start_org
app() { "$BIN/main-app" --bundle "$APP" --device "$DEV" --org "$ORG" --trace "$WORK/app.trace" "$@"; }
nse() { "$BIN/extension-notification" --device "$DEV" "$@"; }
push() {
  admin_curl -s -o "$WORK/push.json" -w '%{http_code}' -X POST "$ORG/__admin/push" -H 'Content-Type: application/json' \
    -d "{\"username\": \"alice@acme.test\", \"title\": \"$1\", \"body\": \"$2\", \"fields\": {\"caseId\": \"500000000000042\", \"priority\": 1}}"
}

# 1. Login registers the device; the org holds the record; the trace shows the request.
expect_status 0 app login --username alice@acme.test --password alice-pass
contains "$(cat "$WORK/app.trace")" '"step":"pushRegistered"'
contains "$(grep pushRegistered "$WORK/app.trace")" 'POST /services/data/v'
contains "$(grep pushRegistered "$WORK/app.trace")" '/sobjects/MobilePushServiceDevice'
ok "login registers the device (trace: POST sobjects/MobilePushServiceDevice)"
expect_status 0 "$BIN/msdk-sim" inspect --device "$DEV" --json
REG=$(field "$OUT" '[p for p in d["push"] if p["app"] == "'$BUNDLE_ID'"][0]["users"]["00D5g00000AcmeeEAA/0055g00000AliceAAA"]')
case "$REG" in "registered as 0Nw"*) ;; *) fail "inspect: alice's registration is '$REG'" ;; esac
ok "msdk-sim inspect: alice $REG"

# 2. A notification: delivered encrypted into the device's inbox, shown decrypted by the extension.
[ "$(push "Case 00001026 escalated" "$BODY_TEXT")" = 200 ] || fail "push: $(cat "$WORK/push.json")"
[ "$(ls "$INBOX" | wc -l)" = 1 ] || fail "expected one payload in the inbox: $(ls "$INBOX")"
expect_status 0 nse --bundle "$NSE" --json
[ "$(field "$OUT" 'd["title"]')" = "Case 00001026 escalated" ] || fail "$OUT"
[ "$(field "$OUT" 'd["body"]')" = "$BODY_TEXT" ] || fail "$OUT"
[ "$(field "$OUT" 'd["fields"]["caseId"]')" = 500000000000042 ] || fail "$OUT"
[ "$(field "$OUT" 'd["decrypted"]')" = True ] || fail "$OUT"
[ "$(ls "$INBOX" | wc -l)" = 0 ] && [ "$(ls "$DELIVERED" | wc -l)" = 1 ] || fail "the payload did not move to delivered/"
ok "the extension decrypts it with the key from the shared group: title, body and fields shown; payload kept in delivered/"
# The org's encryption, checked by an outside client (Python's cryptography), from the wire format alone: the
# secret is the AES-128 key then the IV under RSA-OAEP-SHA256 with the device's key, the content AES-128-CBC
# with PKCS#7 padding of a JSON dictionary. The org shares no code with the client's decryption.
expect_status 0 "$PY" - "$(ls "$DELIVERED"/*.json | head -1)" "$BODY_TEXT" <<'EOF'
import base64, json, sys
import secretstorage
from cryptography.hazmat.primitives import hashes, padding, serialization
from cryptography.hazmat.primitives.asymmetric import padding as asym
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
path, body = sys.argv[1], sys.argv[2]
def find(d):
    if isinstance(d, dict):
        if "secret" in d and "content" in d: return d
        for v in d.values():
            f = find(v)
            if f: return f
payload = find(json.load(open(path)))
assert payload and payload.get("encrypted") is True, f"no encrypted payload in {path}"
bus = secretstorage.dbus_init()
raw = [i.get_secret() for i in secretstorage.get_default_collection(bus).search_items({"service": "com.salesforce.mobilesdk.notificationKey"})][0]
try:
    key = serialization.load_der_private_key(raw, password=None)
except ValueError:
    key = serialization.load_pem_private_key(raw, password=None)
secret = key.decrypt(base64.b64decode(payload["secret"]), asym.OAEP(mgf=asym.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None))
assert len(secret) == 32, f"the secret holds {len(secret)} bytes, not a 16-byte key and a 16-byte IV"
decryptor = Cipher(algorithms.AES(secret[:16]), modes.CBC(secret[16:])).decryptor()
padded = decryptor.update(base64.b64decode(payload["content"])) + decryptor.finalize()
unpadder = padding.PKCS7(128).unpadder()
content = json.loads(unpadder.update(padded) + unpadder.finalize())
assert isinstance(content, dict) and body in json.dumps(content), f"the content decrypted by Python is {sorted(content)}"
print("fields " + ", ".join(sorted(content)))
EOF
ok "Python's cryptography decrypts the org's payload from the wire format alone (RSA-OAEP-SHA256 key and IV, AES-128-CBC, PKCS#7): $OUT"
expect_status 0 nse --bundle "$NSE" --payload "$(ls "$DELIVERED"/*.json | head -1)"
contains "$OUT" "MobileSyncExplorer — notification"
contains "$OUT" "  $BODY_TEXT"
expect_status 10 nse --bundle "$NSE"
contains "$OUT" "no notification"
ok "text card; an empty inbox is noNotification (10)"

# 3. No file on the device holds the body or the private key (raw, base64 or hex); the key is in the keyring only.
expect_status 0 "$PY" - "$DEV" "$BODY_TEXT" <<'EOF'
import base64, binascii, os, sys
import secretstorage
device, body = sys.argv[1], sys.argv[2].encode()
bus = secretstorage.dbus_init()
keys = [i.get_secret() for i in secretstorage.get_default_collection(bus).search_items({"service": "com.salesforce.mobilesdk.notificationKey"})]
assert len(keys) == 1 and len(keys[0]) > 1000, f"expected one RSA private key item, found {[len(k) for k in keys]}"
key = keys[0]
needles = [body, key[40:104], base64.b64encode(key)[60:140], binascii.hexlify(key[40:104])]
files = 0
for top, _, names in os.walk(device):
    for name in names:
        data = open(os.path.join(top, name), "rb").read()
        files += 1
        for n in needles:
            assert n not in data, f"{os.path.join(top, name)} holds {n[:20]!r}..."
assert files > 5, f"only {files} files looked at"
print(files)
EOF
ok "none of the $OUT files on the device holds the body or the private key"

# 4. Payloads that are not encrypted pass through; bad ones give the SDK's error, the fallback, and are kept.
printf '{"aps": {"alert": {"title": "Maintenance", "body": "Tonight at 22:00"}}, "ticket": 7}' > "$WORK/plain.json"
expect_status 0 nse --bundle "$NSE" --payload "$WORK/plain.json" --json
[ "$(field "$OUT" 'd["title"], d["encrypted"], d["decrypted"]')" = "('Maintenance', False, False)" ] || fail "$OUT"
ok "a payload that is not encrypted is shown as it came"
GOOD=$(ls "$DELIVERED"/*.json | head -1)
"$PY" - "$GOOD" "$WORK" <<'EOF'
import json, sys
good = json.load(open(sys.argv[1]))
def write(name, change):
    p = dict(good); change(p); json.dump(p, open(f"{sys.argv[2]}/{name}.json", "w"))
write("truncated", lambda p: p.update(secret=p["secret"][:40]))
write("notbase64", lambda p: p.update(secret="%%%"))
write("nocontent", lambda p: p.pop("content"))
EOF
for bad in truncated:-1009 notbase64:-1007 nocontent:-1002; do
  name=${bad%%:*} code=${bad#*:}
  before=$(sha256sum "$WORK/$name.json")
  expect_status 13 nse --bundle "$NSE" --payload "$WORK/$name.json" --json
  [ "$(field "$OUT" 'd["error"]["code"]')" = "$code" ] || fail "$name: $OUT"
  [ "$(field "$OUT" 'd["title"]')" = "New notification" ] || fail "$name: $OUT"
  [ "$(sha256sum "$WORK/$name.json")" = "$before" ] || fail "$name: the payload changed"
done
printf 'not json' > "$WORK/garbage.json"
expect_status 13 nse --bundle "$NSE" --payload "$WORK/garbage.json"
contains "$OUT" "not a JSON object"
ok "bad payloads: the SDK's error (-1009, -1007, -1002), the fallback alert, exit 13, the payload unchanged"

# 5. No Secret Service: keychainUnavailable (12) with the fallback.
expect_status 12 env -u DBUS_SESSION_BUS_ADDRESS -u DISPLAY "$BIN/extension-notification" --device "$DEV" --bundle "$NSE" --payload "$GOOD" --json
[ "$(field "$OUT" 'd["title"]')" = "New notification" ] || fail "$OUT"
ok "no Secret Service: keychainUnavailable (12), fallback shown"

# 6. An extension without the app's keychain group: the fallback, 11, and the doctor names it.
cp -r "$APP" "$WORK/NoGroup.app"
"$PY" - "$WORK/NoGroup.app/PlugIns/NotificationService.appex/NotificationService.entitlements" <<'EOF'
import plistlib, sys
d = plistlib.load(open(sys.argv[1], "rb"))
d["keychain-access-groups"] = ["$(AppIdentifierPrefix)com.salesforce.mobilesdk.MobileSyncExplorer.NotificationService"]
plistlib.dump(d, open(sys.argv[1], "wb"))
EOF
[ "$(push "Case 00001027 assigned" "Call Globex")" = 200 ] || fail "push: $(cat "$WORK/push.json")"
expect_status 11 nse --bundle "$WORK/NoGroup.app/PlugIns/NotificationService.appex" --json
[ "$(field "$OUT" 'd["title"], d["body"], d["error"]["code"]')" = "('New notification', '', -1008)" ] || fail "$OUT"
contains "$(field "$OUT" 'd["message"]')" "keychain-access-groups"
[ "$(ls "$DELIVERED" | wc -l)" = 2 ] || fail "the payload was not kept"
expect_status 1 "$BIN/msdk-sim" doctor --app "$WORK/NoGroup.app" --json
contains "$OUT" '"id" : "push-key-group-not-shared"'
expect_status 0 nse --bundle "$NSE" --payload "$(ls "$DELIVERED"/*.json | tail -1)"
contains "$OUT" "Case 00001027 assigned"
ok "an extension without the group shows only the fallback (11); the doctor says push-key-group-not-shared; the kept payload decrypts with the right one"

# 6b. Outside clients on both sides: Python (requests) reads alice's registration through the REST API
# and encrypts a notification with the registered public key using `cryptography` (PyPI), as a server of
# the user's own would; the extension decrypts what our gateway did not make.
expect_status 0 "$PY" - "$ORG" "$INBOX" <<'EOF'
import base64, hashlib, json, os, re, sys, textwrap, urllib.parse
import requests
from cryptography.hazmat.primitives import hashes, padding as sympad, serialization
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
org, inbox = sys.argv[1], sys.argv[2]
client, redirect = "3MVG9AppGroupSim.MobileSyncExplorer.Sample", "testsfdc:///mobilesdk/detect/oauth/done"
verifier = base64.urlsafe_b64encode(os.urandom(48)).rstrip(b"=").decode()
challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
params = {"response_type": "code", "client_id": client, "redirect_uri": redirect, "code_challenge": challenge,
          "code_challenge_method": "S256", "scope": "api"}
assert requests.get(f"{org}/services/oauth2/authorize", params=params).status_code == 200
answer = requests.post(f"{org}/services/oauth2/authorize", data={**params, "username": "alice@acme.test", "password": "alice-pass"},
                       allow_redirects=False)
code = urllib.parse.parse_qs(urllib.parse.urlparse(answer.headers["Location"]).query)["code"][0]
tokens = requests.post(f"{org}/services/oauth2/token", data={"grant_type": "authorization_code", "code": code, "client_id": client,
                       "redirect_uri": redirect, "code_verifier": verifier}).json()
token, uid = tokens["access_token"], tokens["id"].rsplit("/", 1)[1]
rows = requests.get(f"{org}/services/data/v66.0/query", headers={"Authorization": f"Bearer {token}"}, params={
    "q": "SELECT Id, ConnectionToken, ServiceType, ApplicationBundle, RsaPublicKey, CipherName FROM MobilePushServiceDevice"}).json()["records"]
assert len(rows) == 1, rows
row = rows[0]
assert (row["ServiceType"], row["CipherName"], row["ApplicationBundle"]) == ("Apple", "RSA_OAEP_SHA256", "com.salesforce.mobilesdk.MobileSyncExplorer"), row
assert re.fullmatch("[0-9a-f]{64}", row["ConnectionToken"]), row["ConnectionToken"]
pem = "-----BEGIN RSA PUBLIC KEY-----\n" + "\n".join(textwrap.wrap(row["RsaPublicKey"], 64)) + "\n-----END RSA PUBLIC KEY-----\n"
public = serialization.load_pem_public_key(pem.encode())
assert public.key_size == 2048
key, iv = os.urandom(16), os.urandom(16)
secret = public.encrypt(key + iv, padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None))
padder = sympad.PKCS7(128).padder()
plain = padder.update(json.dumps({"alertTitle": "From Python", "alertBody": "cryptography wrapped this", "orderId": 77}).encode()) + padder.finalize()
encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
content = encryptor.update(plain) + encryptor.finalize()
# uid: the user the notification is for (SFSDKPushNotificationFieldsConstants' kRemoteNotificationKeyUserid).
payload = {"encrypted": True, "secret": base64.b64encode(secret).decode(), "content": base64.b64encode(content).decode(),
           "aps": {"alert": {"title": "New notification", "body": ""}}, "uid": uid}
os.makedirs(inbox, exist_ok=True)
with open(os.path.join(inbox, "000000000000000-python.json"), "w") as f:
    json.dump(payload, f)
print(row["Id"])
EOF
expect_status 0 nse --bundle "$NSE" --json
[ "$(field "$OUT" 'd["title"], d["body"], d["fields"]["orderId"], d["decrypted"]')" = "('From Python', 'cryptography wrapped this', 77, True)" ] || fail "$OUT"
ok "requests reads the registration (Apple, RSA_OAEP_SHA256, a 2048-bit public key); a payload made by cryptography (PyPI) decrypts in the extension"

# 7. Logout unregisters (trace: DELETE); a push then reaches nobody.
expect_status 0 app logout
contains "$(grep pushUnregistered "$WORK/app.trace")" 'DELETE /services/data/v'
[ "$(push "After logout" "nobody")" = 404 ] || fail "push after logout: $(cat "$WORK/push.json")"
contains "$(cat "$WORK/push.json")" NO_REGISTERED_DEVICE
expect_status 10 nse --bundle "$NSE"
ok "logout unregisters (trace: DELETE sobjects/MobilePushServiceDevice/<id>); a push after it is NO_REGISTERED_DEVICE and nothing is delivered"
