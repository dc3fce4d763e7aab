#!/usr/bin/env bash
# UserAccount.plist as the SDK keeps it: sealed with AES-256-GCM under a key that the app makes once and
# keeps in its keychain group. Outside tools read it (SecretStorage for the key, cryptography for the
# cipher, plistlib for the SDK's keys and LastUserIdentity's keyed archive); a second process (the
# widget) decrypts it through the shared group; a widget without the group fails for real (11) and
# changes nothing; a damaged file is named and kept, and only --sdk-recovery deletes it.
APPGROUPSIM_NEEDS_KEYRING=1 source "$(dirname "$0")/../lib/integration.sh"
source "$ROOT/scripts/lib/common.sh"
PY=$(ensure_python_venv)
DEV="$WORK/device"
KEY_SERVICE=com.salesforce.keystore.com.salesforce.userAccount.encryptionKey
start_org
app() { "$BIN/main-app" --bundle "$APP" --device "$DEV" --org "$ORG" "$@"; }

expect_status 0 app login --username alice@acme.test --password alice-pass
expect_status 0 app sync
ACCOUNT=$(find "$DEV" -name UserAccount.plist)
[ "$(printf '%s\n' "$ACCOUNT" | grep -c .)" = 1 ] || fail "expected one account file: $ACCOUNT"
SUITE="$DEV/Containers/Shared/AppGroup/$GROUP/Library/Preferences/$GROUP.plist"

# Outside tools: the key from the Secret Service, the cipher, the SDK's keys, the keyed archive.
expect_status 0 "$PY" "$ROOT/scripts/integration/account_encryption_check.py" "$ACCOUNT" "$SUITE" "$KEY_SERVICE"
CHECK=$OUT
[ "$(field "$CHECK" 'd["username"]')" = alice@acme.test ] || fail "decrypted account: $CHECK"
[ "$(field "$CHECK" 'd["class"]')" = SFUserAccountIdentity ] || fail "LastUserIdentity: $CHECK"
[ "$(field "$CHECK" 'd["archiver"]')" = NSKeyedArchiver ] || fail "LastUserIdentity: $CHECK"
[ "$(field "$CHECK" 'd["identity"]["userIdKey"]')" = 0055g00000AliceAAA ] || fail "LastUserIdentity: $CHECK"
KEY_GROUP=$(field "$CHECK" 'd["group"]')
case "$KEY_GROUP" in SIMTEAM001.com.salesforce.mobilesdk.MobileSyncExplorer) ;; *) fail "the key is in group $KEY_GROUP" ;; esac
ok "UserAccount.plist decrypts with AES-256-GCM under the key in $KEY_GROUP; SDK keys and LastUserIdentity (SFUserAccountIdentity archive) read by plistlib"
# No token in the file, sealed or open: the check compared against the tokens themselves.
REFRESH_HEX=$(secret-tool lookup service com.salesforce.mobilesdk.oauth.refresh 2>/dev/null | xxd -p | tr -d '\n')
[ -n "$REFRESH_HEX" ] || fail "no refresh token to compare with"
grep -q "$REFRESH_HEX" <<< "$(xxd -p "$ACCOUNT" | tr -d '\n')" && fail "the refresh token is in UserAccount.plist"
ok "no token in the account file"

# A second process reads the account through the shared keychain group.
expect_status 0 "$BIN/extension-widget" --bundle "$WIDGET" --device "$DEV" --json
[ "$(field "$OUT" 'd["user"]["username"]')" = alice@acme.test ] || fail "widget: $OUT"
ok "the widget (a second process) decrypted the account through keychain group $KEY_GROUP and listed"

# The same widget without the app's keychain group: the key is not in its groups (-25300), so it cannot
# learn the current user, fails with misconfigured (11), and changes nothing. Outside its app's bundle,
# so that the static check of the two targets (which would say the same before any read) does not run:
# this is the keychain itself refusing.
NOGROUP="$WORK/nogroup/RecentContacts.appex"
mkdir -p "$(dirname "$NOGROUP")" && cp -R "$WIDGET" "$NOGROUP"
python3 - "$NOGROUP/RecentContacts.entitlements" <<'PYEOF'
import plistlib, sys
p = sys.argv[1]
d = plistlib.load(open(p, "rb"))
d["keychain-access-groups"] = ["$(AppIdentifierPrefix)com.salesforce.mobilesdk.RecentContacts"]
plistlib.dump(d, open(p, "wb"))
PYEOF
BEFORE=$(sha256sum "$ACCOUNT"; sdk_items | grep -c '^label = ')
expect_status 11 "$BIN/extension-widget" --bundle "$NOGROUP" --device "$DEV" --json
[ "$(field "$OUT" 'd["state"]')" = misconfigured ] || fail "widget without the group: $OUT"
contains "$(field "$OUT" 'd["message"]')" "$KEY_SERVICE"
contains "$(field "$OUT" 'd["message"]')" "keychain-access-groups"
[ "$(sha256sum "$ACCOUNT"; sdk_items | grep -c '^label = ')" = "$BEFORE" ] || fail "the widget without the group changed the account file or the keychain"
ok "a widget without the keychain group: misconfigured (11), naming the key and the entitlement; nothing changed"

# inspect: how the file is protected, and the user only because the key could be read.
expect_status 0 "$BIN/msdk-sim" inspect --device "$DEV"
contains "$OUT" "encrypted, key in group $KEY_GROUP"
contains "$OUT" "alice@acme.test"
ok "inspect: encrypted, key in group $KEY_GROUP"

# A damaged file (truncated): the app names it and keeps it; the widget says unreadable (13).
cp "$ACCOUNT" "$WORK/account.saved"
head -c 20 "$WORK/account.saved" > "$ACCOUNT"
expect_status 1 app contacts list --json
contains "$ERR" "$ACCOUNT"
contains "$ERR" "cannot be decrypted"
[ "$(wc -c < "$ACCOUNT")" = 20 ] || fail "the damaged file was changed"
expect_status 13 "$BIN/extension-widget" --bundle "$WIDGET" --device "$DEV" --json
[ -f "$ACCOUNT" ] || fail "the widget deleted the damaged file"
ok "a truncated account file: named, kept (app exit 1, widget unreadable 13)"
cp "$WORK/account.saved" "$ACCOUNT"
expect_status 0 app contacts list --json
ok "the restored file reads again: nothing was lost"

# The SDK's recovery, asked for: the file that does not decrypt is deleted, as fetchAllAccounts does.
head -c 20 "$WORK/account.saved" > "$ACCOUNT"
expect_status 1 app --sdk-recovery contacts list --json
contains "$ERR" "deleted the account(s) it could not read or decrypt"
[ ! -f "$ACCOUNT" ] || fail "--sdk-recovery kept the undecryptable file"
ok "--sdk-recovery: the undecryptable account file was deleted, as the SDK does"
