#!/usr/bin/env bash
# The app's life cycle beyond one command, with the real binaries, org and keyring: main-app shell
# with scenes (deferred login, login/logout/switch reset every scene), the configured login screen,
# no token + org unreachable, the screen lock at a later launch, and app groups disabled in the app.
APPGROUPSIM_NEEDS_KEYRING=1 source "$(dirname "$0")/../lib/integration.sh"
DEV="$WORK/device"

start_org
app() { "$BIN/main-app" --bundle "$APP" --device "$DEV" --org "$ORG" "$@"; }
widget() { "$BIN/extension-widget" --bundle "$WIDGET" --device "$DEV" --json "$@"; }
shell_run() { printf '%b' "$1" | app --trace "$WORK/trace" shell --scene left --scene right; }

# No token and the org unreachable: an error back at login, no user change reported to the app.
expect_status 1 "$BIN/main-app" --bundle "$APP" --device "$DEV" --org http://127.0.0.1:1 --trace "$WORK/offline.trace" \
  login --username alice@acme.test --password alice-pass
contains "$ERR" "cannot be reached"
contains "$(cat "$WORK/offline.trace")" '"step":"authenticationFailed"'
! grep -q SFUserAccountManagerDidChangeUserNotification "$WORK/offline.trace" || fail "an unreachable org was reported as a user change"
expect_status 0 app status --json
[ "$(field "$OUT" 'd["accounts"]')" = "[]" ] || fail "$OUT"
[ "$(field "$OUT" 'd["userLoggedIn"]')" = False ] || fail "$OUT"
ok "no token and the org unreachable: one error, back at login, no user change, nothing kept"

# Deferred login in the shell: nothing authenticates before login-if-required; the login screen shows
# the bundle's LoginViewConfig; a login in one scene resets both.
expect_status 0 shell_run 'scenes\nlogin-if-required\nalice@acme.test\nalice-pass\nsync\nshow\n'
contains "$OUT" "[left] LaunchScreen (login deferred)"
contains "$OUT" "MobileSyncExplorer  (Helvetica-Bold 18)]  bar #032D60, title #FFFFFF"
contains "$OUT" "[right] root reset: ContactsList(alice@acme.test)"
contains "$OUT" "[left] root reset: ContactsList(alice@acme.test)"
contains "$OUT" "sync down: DONE, 1000 record(s)"
grep -q '"step":"showLoginScreen"' "$WORK/trace" || fail "no login screen in the trace"
ok "shell: login deferred until login-if-required; the configured login screen; both scenes reset"

expect_status 0 shell_run 'login-if-required\nlogin bob@acme.test bob-pass\nlogout\nlogout\nscenes\n'
contains "$OUT" "valid token for alice@acme.test: authentication skipped"
! grep -q '"step":"showLoginScreen"' "$WORK/trace" || fail "a valid token still showed the login screen"
contains "$OUT" "[right] root reset: ContactsList(bob@acme.test)"
contains "$OUT" "logged out bob@acme.test; switched to alice@acme.test"
contains "$OUT" "[left] root reset: LoginScreen"
contains "$OUT" "[right] root reset: LoginScreen"
ok "shell: a valid token skips login; login, logout and handleLogout's switch reset every scene"

expect_status 10 widget
ok "after the shell's last logout the widget is notLoggedIn"

# The screen lock: set at Globex's login, asked for again at a launch after the policy's timeout.
expect_status 0 app login --username carol@globex.test --password carol-pass --passcode 2468
expect_status 0 app contacts list
python3 - "$DEV" <<'PY'
import datetime, glob, plistlib, sys
path = glob.glob(sys.argv[1] + "/Containers/Data/com.salesforce.mobilesdk.MobileSyncExplorer/Library/Preferences/*.plist")[0]
with open(path, "rb") as f: d = plistlib.load(f)
d["AppGroupSimScreenLockLastActive"] = datetime.datetime(2020, 1, 1)   # the app has been idle since
with open(path, "wb") as f: plistlib.dump(d, f)
PY
expect_status 1 app contacts list
contains "$ERR" "the app is locked"
expect_status 1 app --passcode 1357 contacts list
contains "$ERR" "wrong passcode; 9 attempt(s) left"
expect_status 0 app --passcode 2468 contacts list
expect_status 0 app contacts list
ok "screen lock: asked again at a launch after the timeout; a wrong passcode counts; the right one unlocks"
expect_status 0 app logout
expect_status 0 app status --json
[ "$(field "$OUT" 'd["screenLocked"]')" = False ] || fail "$OUT"
ok "the passcode goes with the last account under the policy"

# App groups disabled in the app: the widget (which follows the app's flag) sees only its own defaults.
expect_status 0 app login --username alice@acme.test --password alice-pass
expect_status 0 widget
expect_status 0 app app-group disable
expect_status 10 widget
contains "$(field "$OUT" 'd["message"]')" "app groups are off"
expect_status 0 app app-group enable
expect_status 0 widget
ok "app groups disabled in the app: the widget is notLoggedIn; enabled again: it lists"
