#!/usr/bin/env bash
# The widget's failure states with the real binaries: wrong entitlements (11), no Secret Service and a
# keyring that is not unlocked (12), and a clear one-line error for a missing device.
source "$(dirname "$0")/../lib/integration.sh"
DEV="$WORK/device"

# A widget without the keychain group: misconfigured.
cp -R "$WIDGET" "$WORK/NoKeychain.appex"
python3 - "$WORK/NoKeychain.appex/RecentContacts.entitlements" <<'PY'
import plistlib, sys
p = sys.argv[1]; d = plistlib.load(open(p, 'rb')); d['keychain-access-groups'] = []
plistlib.dump(d, open(p, 'wb'))
PY
# Place it beside the app's PlugIns so the widget can find its host app.
mkdir -p "$WORK/Host.app/PlugIns"
cp -R "$APP"/*.plist "$APP"/*.entitlements "$WORK/Host.app/"
mv "$WORK/NoKeychain.appex" "$WORK/Host.app/PlugIns/"
expect_status 11 "$BIN/extension-widget" --bundle "$WORK/Host.app/PlugIns/NoKeychain.appex" --device "$DEV" --json
[ "$(json_field "$OUT" state)" = misconfigured ] || fail "$OUT"
contains "$(json_field "$OUT" message)" "keychain-access-groups"
ok "widget without the keychain group: misconfigured (exit 11), names the fix"

# The app has logged in (flag set); now the keychain is what fails.
"$BIN/msdk-sim" defaults write --bundle "$APP" --device "$DEV" userLoggedIn true --type bool
"$BIN/main-app" --bundle "$APP" --device "$DEV" status >/dev/null

expect_status 12 env -u DBUS_SESSION_BUS_ADDRESS -u DISPLAY "$BIN/extension-widget" --bundle "$WIDGET" --device "$DEV" --json
[ "$(json_field "$OUT" state)" = keychainUnavailable ] || fail "$OUT"
contains "$(json_field "$OUT" message)" "scripts/with-keyring"
ok "no session bus: keychainUnavailable (exit 12), says how to start one"

expect_status 1 env -u DBUS_SESSION_BUS_ADDRESS -u DISPLAY "$BIN/msdk-sim" keychain status --bundle "$APP" --device "$DEV"
[ "$(printf '%s\n' "$ERR" | grep -c .)" = 1 ] || fail "expected one line on stderr, got: $ERR"
contains "$ERR" "-25291"
ok "msdk-sim keychain status: one line naming the problem and the fix"

APPGROUPSIM_KEYRING_LOCKED=1 "$ROOT/scripts/with-keyring" bash -c "
  source '$ROOT/scripts/lib/integration.sh'
  expect_status 12 '$BIN/extension-widget' --bundle '$WIDGET' --device '$DEV' --json
  contains \"\$(json_field \"\$OUT\" message)\" 'no default collection'
  ok 'keyring never unlocked: keychainUnavailable (exit 12)'
"

expect_status 1 env -u APPGROUPSIM_DEVICE "$BIN/main-app" --bundle "$APP" status
contains "$ERR" "--device"
ok "no device: one clear error"
