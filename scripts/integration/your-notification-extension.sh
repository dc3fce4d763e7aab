#!/usr/bin/env bash
# Your own notification service extension (issue 37): Fixtures/CaseAlerts is written the way the SDK's
# encrypted-notification template is (a keychain group only, no app group; an extension that subclasses
# UNNotificationServiceExtension and decrypts with SFSDKPushNotificationDecryption). It is imported with
# --package, its setup test passes, doctor finds nothing; main-app logs alice in and registers the device; the
# org pushes, and `msdk-sim device deliver` runs the developer's own class on each notification as iOS does:
# an RSA-OAEP payload and an RSA PKCS#1 v1.5 one are both shown decrypted, a payload it cannot decrypt is shown
# as it came and loses nothing. Real processes, the real keyring, the org on loopback.
# scripts/test: scratch (it builds consumer packages in the shared scratch path, AppGroupSim's own .build)
APPGROUPSIM_NEEDS_KEYRING=1 source "$(dirname "$0")/../lib/integration.sh"
source "$ROOT/scripts/lib/common.sh"
PY=$(ensure_python_venv)
SCRATCH="$ROOT/.build"
PKG="$WORK/package"
DEV="$WORK/device"
PROJECT="$ROOT/Fixtures/CaseAlerts/CaseAlerts.xcodeproj"
BUNDLE_ID=com.acme.casealerts
INBOX="$DEV/Notifications/$BUNDLE_ID/inbox"
DELIVERED="$DEV/Notifications/$BUNDLE_ID/delivered"

# 1. The import: the extension target becomes an executable of the developer's class; nothing is left out.
expect_status 0 "$BIN/msdk-sim" doctor --xcodeproj "$PROJECT"
contains "$OUT" "no finding"
expect_status 0 "$BIN/msdk-sim" import --xcodeproj "$PROJECT" --package "$PKG" --scratch-path "$SCRATCH"
IMPORT="$OUT"
contains "$IMPORT" "target NotificationServiceExtension (from NotificationServiceExtension): 1 Swift file(s)"
contains "$IMPORT" "notification service extension: runs NotificationService on the next notification of its app's inbox"
contains "$IMPORT" "target CaseAlerts (from CaseAlerts): 1 Swift file(s)"
contains "$IMPORT" "swift build: built"
[ "$(printf '%s\n' "$IMPORT" | grep -c "left out:")" = 0 ] || fail "a file was left out: $IMPORT"
APP="$PKG/Bundles/CaseAlerts.app"
expect_status 0 "$BIN/msdk-sim" doctor --app "$APP"
contains "$OUT" "no finding"
ok "doctor finds nothing in a keychain-group-only project (xcodeproj and bundles); import --package: the extension's own class becomes runnable, every file compiles"
APPGROUPSIM_BUNDLE="$APP" swift test --package-path "$PKG" --disable-build-manifest-caching --scratch-path "$SCRATCH" --skip-build > "$WORK/setup-tests.log" 2>&1 \
  || fail "the package's SetupTests failed: $(grep -m5 'error' "$WORK/setup-tests.log")"
grep -q "Executed 1 test, with 0 failures" "$WORK/setup-tests.log" || fail "not the 1 setup test expected: $(grep Executed "$WORK/setup-tests.log" | tail -1)"
ok "its SetupTests pass: the extension reads the app's keychain item through the one keychain group they share"

# 2. Login registers the device for push (with CipherName RSA_OAEP_SHA256, as the SDK 12 does).
start_org
expect_status 0 "$BIN/main-app" --bundle "$APP" --device "$DEV" --org "$ORG" --trace "$WORK/app.trace" login --username alice@acme.test --password alice-pass
contains "$(cat "$WORK/app.trace")" '"step":"pushRegistered"'
push() {
  admin_curl -s -o "$WORK/push.json" -w '%{http_code}' -X POST "$ORG/__admin/push" -H 'Content-Type: application/json' \
    -d "{\"username\": \"alice@acme.test\", \"title\": \"$1\", \"body\": \"$2\", \"fields\": {\"caseId\": \"500000000000042\"}$3}"
}
deliver() { "$BIN/msdk-sim" device deliver --device "$DEV" --package "$PKG" --target NotificationServiceExtension --scratch-path "$SCRATCH" "$@"; }
# The first delivery builds the extension (swift build --product); the others run that build (--skip-build), as a
# developer delivering one notification after another would: each swift build, with nothing to compile, takes 4 s.
ok "main-app logs alice in with the imported bundle and registers the device for push"

# 3. RSA-OAEP, then RSA PKCS#1 v1.5: the developer's class shows each decrypted.
SKIP=()
for cipher in RSA_OAEP_SHA256 RSA_PKCS1; do
  [ "$(push "Case 00001026 escalated ($cipher)" "Acme needs a call back" ", \"cipher\": \"$cipher\"")" = 200 ] || fail "push: $(cat "$WORK/push.json")"
  [ "$(field "$(cat "$WORK/push.json")" 'd["delivered"][0]["cipher"]')" = "$cipher" ] || fail "the org did not say it used $cipher: $(cat "$WORK/push.json")"
  expect_status 0 deliver --json "${SKIP[@]}"
  SKIP=(--skip-build)
  [ "$(field "$OUT" 'd["state"]')" = shown ] || fail "$OUT"
  [ "$(field "$OUT" 'd["title"]')" = "Case 00001026 escalated ($cipher)" ] || fail "$cipher: $OUT"
  [ "$(field "$OUT" 'd["body"]')" = "Acme needs a call back" ] || fail "$cipher: $OUT"
  [ "$(field "$OUT" 'd["fields"]["caseId"]')" = 500000000000042 ] || fail "$cipher: $OUT"
  [ "$(field "$OUT" 'd["changed"]')" = True ] || fail "$cipher: $OUT"
done
[ "$(ls "$INBOX" | wc -l)" = 0 ] && [ "$(ls "$DELIVERED" | wc -l)" = 2 ] || fail "the payloads did not move to delivered/"
ok "the developer's NotificationService shows an RSA-OAEP and an RSA PKCS#1 v1.5 payload decrypted (title, body, fields)"
# The org's PKCS#1 v1.5 secret, checked by an outside client (Python's cryptography) from the wire format alone.
expect_status 0 "$PY" - "$(ls "$DELIVERED"/*.json | tail -1)" <<'EOF'
import base64, json, sys
import secretstorage
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import padding as asym
payload = json.load(open(sys.argv[1]))
bus = secretstorage.dbus_init()
raw = [i.get_secret() for i in secretstorage.get_default_collection(bus).search_items({"service": "com.salesforce.mobilesdk.notificationKey"})][0]
key = serialization.load_der_private_key(raw, password=None)
secret = key.decrypt(base64.b64decode(payload["secret"]), asym.PKCS1v15())
assert len(secret) == 32, len(secret)
try:
    from cryptography.hazmat.primitives import hashes
    key.decrypt(base64.b64decode(payload["secret"]), asym.OAEP(mgf=asym.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None))
    raise SystemExit("the PKCS#1 v1.5 secret also decrypts as OAEP")
except ValueError:
    pass
print("PKCS#1 v1.5, 32 bytes")
EOF
ok "Python's cryptography decrypts the org's second secret as RSA PKCS#1 v1.5, not as OAEP"

# 4. A payload it cannot decrypt (its secret damaged on the way): shown as it came, the error logged, nothing lost.
[ "$(push "secret title" "secret body" "")" = 200 ] || fail "push: $(cat "$WORK/push.json")"
FILE=$(ls "$INBOX"/*.json | head -1)
python3 - "$FILE" <<'EOF'
import base64, json, sys
p = json.load(open(sys.argv[1]))
p["secret"] = base64.b64encode(b"\x01" * 256).decode()
json.dump(p, open(sys.argv[1], "w"))
EOF
BEFORE=$(sha256sum < "$FILE")
expect_status 0 deliver --skip-build
contains "$OUT" "Case Alerts — notification"
contains "$OUT" "  New notification"
contains "$OUT" "[shown, as delivered]"
case "$OUT" in *"secret title"*|*"secret body"*) fail "the undecryptable payload showed its content: $OUT" ;; esac
contains "$ERR" "Domain=com.salesforce.mobilesdk.push.error Code=-1009"
[ "$BEFORE" = "$(sha256sum < "$DELIVERED/$(basename "$FILE")")" ] || fail "the undecryptable payload changed in delivered/"
ok "a payload that cannot be decrypted shows the org's fallback alert, the SDK's error (-1009) is logged, the payload is kept as it came"

# 5. The project's own extension-notification on this bundle: no app group, so it goes to the key as the SDK does.
[ "$(push "to the project's extension" "its own rules" "")" = 200 ] || fail "push: $(cat "$WORK/push.json")"
expect_status 0 "$BIN/extension-notification" --device "$DEV" --bundle "$APP/PlugIns/NotificationServiceExtension.appex" --json
[ "$(field "$OUT" 'd["title"]')" = "to the project's extension" ] || fail "$OUT"
ok "extension-notification decrypts for a keychain-group-only app too (it cannot see the accounts, so it does not refuse as notLoggedIn)"

# 6. Hostile input: a cipher the org does not know is refused and nothing is delivered; a payload nested 100,000
#    deep is unreadable (13), kept as it came, and the extension's class never runs on it.
[ "$(push "x" "y" ", \"cipher\": \"RSA_NONE\"")" = 400 ] || fail "an unknown cipher was not refused: $(cat "$WORK/push.json")"
contains "$(cat "$WORK/push.json")" "cipher must be"
[ "$(ls "$INBOX" | wc -l)" = 0 ] || fail "the refused push delivered something"
python3 -c 'import sys; open(sys.argv[1], "w").write("{\"aps\": " + "[" * 100000 + "]" * 100000 + "}")' "$INBOX/999999999999999-DEEPDEEP.json"
BEFORE=$(sha256sum < "$INBOX/999999999999999-DEEPDEEP.json")
expect_status 13 deliver --skip-build
contains "$OUT" "is not a JSON object"
[ "$BEFORE" = "$(sha256sum < "$DELIVERED/999999999999999-DEEPDEEP.json")" ] || fail "the deep payload was not kept as it came"
ok "hostile input: an unknown cipher is one 400 and nothing is delivered; a payload nested 100,000 deep is unreadable (13) and kept"

# 7. An empty inbox, and a target that is not an extension.
expect_status 10 deliver --skip-build
contains "$OUT" "no notification was delivered to $BUNDLE_ID"
expect_status 1 deliver --target CaseAlerts
contains "$ERR" "is not a notification service extension"
# --skip-build where nothing was built: refused by name, with the way out.
expect_status 1 "$BIN/msdk-sim" device deliver --device "$DEV" --package "$PKG" --target NotificationServiceExtension --scratch-path "$WORK/never-built" --skip-build
contains "$ERR" "target NotificationServiceExtension has not been built (no $WORK/never-built/"
contains "$ERR" "run msdk-sim device deliver without --skip-build"
ok "deliver: an empty inbox exits 10; the app's own target is refused by name; --skip-build without a build is refused"
