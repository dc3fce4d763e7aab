#!/usr/bin/env bash
# Run your app's code (issue 27): the Recents fixture's Xcode project (the current Swift template's way of
# sharing: viewed contacts encrypted in the user's library directory, read back by the widget's provider)
# imported with --package, built, its setup test run, then its own code run as the app and the widget on a
# device against sf-simulator: login, sync, viewed contacts, the widget, a deep link. Then its field
# failures, each broken and then fixed, with real processes, and doctor's or inspect's explanation.
# scripts/test: scratch (it builds consumer packages in the shared scratch path, AppGroupSim's own .build)
APPGROUPSIM_NEEDS_KEYRING=1 source "$(dirname "$0")/../lib/integration.sh"
SCRATCH="$ROOT/.build"
PKG="$WORK/package"
DEV="$WORK/device"

expect_status 0 "$BIN/msdk-sim" import --xcodeproj "$ROOT/Fixtures/Recents/Recents.xcodeproj" --package "$PKG" --scratch-path "$SCRATCH"
IMPORT="$OUT"
contains "$IMPORT" "target Recents (from Recents): 4 Swift file(s)"
contains "$IMPORT" "target RecentsWidget (from RecentsWidget): 2 Swift file(s)"
contains "$IMPORT" "changed RecentsWidget/Provider.swift:8: import SalesforceSDKCommon.SFSDKDatasharingHelper → import SalesforceSDKCommon"
contains "$IMPORT" "UI, set aside: Recents/SceneDelegate.swift (SceneDelegate is a UIResponder)"
contains "$IMPORT" "swift build: built"
# One file is UIKit without being a view: it names UIColor, so it is UI and set aside (issue 37).
contains "$IMPORT" "UI, set aside: Recents/ContactColors.swift (it names UIKit's UIColor)"
[ -f "$PKG/UI/Recents/Recents/ContactColors.swift" ] || fail "ContactColors.swift is not in UI/"
[ "$(printf '%s\n' "$IMPORT" | grep -c "left out:")" = 0 ] || fail "a file that is not UI did not compile: $IMPORT"
python3 - "$PKG/Bundles/Recents.app/AppGroupConfig.plist" <<'PY' || fail "AppGroupConfig.plist is not what the code says"
import plistlib, sys
c = plistlib.load(open(sys.argv[1], "rb"))
assert c == {"appGroupName": "group.com.acme.recents", "appGroupsEnabled": True, "userLogInStatusKey": "userLoggedIn"}, c
PY
ok "import --package: 2 targets, UI files set aside (a UIKit type named makes a file UI), the rest compiles; AppGroupConfig.plist from the code"

expect_status 0 "$BIN/msdk-sim" doctor --xcodeproj "$ROOT/Fixtures/Recents/Recents.xcodeproj"
contains "$OUT" "no finding"
ok "doctor --xcodeproj reads the code and finds nothing"

# A second import into the same package directory is refused, and nothing in it changes.
BEFORE=$(cd "$PKG" && find . -path ./.build -prune -o -type f -print | sort | xargs sha256sum)
expect_status 1 "$BIN/msdk-sim" import --xcodeproj "$ROOT/Fixtures/Recents/Recents.xcodeproj" --package "$PKG" --no-build
contains "$ERR" "exists and is not an empty directory"
[ "$BEFORE" = "$(cd "$PKG" && find . -path ./.build -prune -o -type f -print | sort | xargs sha256sum)" ] || fail "the refused import changed the package"
ok "a second import into the package directory is refused, nothing changed"

swift test --package-path "$PKG" --disable-build-manifest-caching --scratch-path "$SCRATCH" --skip-build > "$WORK/setup-tests.log" 2>&1 || fail "the package's SetupTests failed: $(grep -m3 'error' "$WORK/setup-tests.log")"
grep -q "Executed 1 test, with 0 failures" "$WORK/setup-tests.log" || fail "SetupTests: $(tail -5 "$WORK/setup-tests.log")"
ok "the package's SetupTests: as the app and as the widget, the group, the suite and the keychain group are reachable"

RECENTS_PACKAGE="$PKG" swift build --package-path "$ROOT/Fixtures/Recents/Driver" --disable-build-manifest-caching --scratch-path "$SCRATCH" > "$WORK/driver.log" 2>&1 \
  || fail "the driver did not build: $(grep -m5 'error:' "$WORK/driver.log")"
# The driver's executables run from a copy, so that the scratch path is free for the next script meanwhile.
RBIN="$WORK/driver-bin"
mkdir "$RBIN"
cp -a "$SCRATCH/debug/recents-app" "$SCRATCH/debug/recents-widget" "$SCRATCH"/debug/*.resources "$RBIN/"
scratch_done
R_APP="$PKG/Bundles/Recents.app"
R_WIDGET="$R_APP/PlugIns/RecentsWidget.appex"
as_app() { APPGROUPSIM_BUNDLE="$R_APP" APPGROUPSIM_DEVICE="$DEV" "$RBIN/recents-app" "$@"; }
as_widget() { APPGROUPSIM_BUNDLE="$R_WIDGET" APPGROUPSIM_DEVICE="$DEV" "$RBIN/recents-widget"; }
main_app() { "$BIN/main-app" --bundle "$R_APP" --device "$DEV" --org "$ORG" "$@"; }

start_org --connected-app '3MVG9Acme.Recents.Example=recents://oauth/done'
expect_status 0 as_widget
[ "$OUT" = "placeholder
+ | recents://contact/new" ] || fail "before any login the widget shows its placeholder: $OUT"
expect_status 0 main_app login --username alice@acme.test --password alice-pass
expect_status 0 as_app sync
contains "$OUT" "user: alice@acme.test"
SYNCED=$(printf '%s\n' "$OUT" | sed -n 's/^synced: //p')
[ -n "$SYNCED" ] || fail "no sync: $OUT"
ok "the app's code logged in (main-app with the imported bundle) and synced with SyncManager: $SYNCED"

expect_status 0 as_app list 4
mapfile -t ROWS < <(printf '%s\n' "$OUT" | grep ' | ')
[ "${#ROWS[@]}" = 4 ] || fail "not 4 contacts: $OUT"
LAST() { printf '%s' "${ROWS[$1]}" | sed 's/.* | //' | awk '{print $NF}'; }
ID() { printf '%s' "${ROWS[$1]}" | sed 's/ | .*//'; }
NAME() { printf '%s' "${ROWS[$1]}" | sed 's/.* | //'; }
# Four views: the file keeps the newest three, newest first.
for i in 0 1 2 3; do
  expect_status 0 as_app view "$(ID $i)"
done
EXPECTED="$(NAME 3) | recents://contact/$(ID 3)
$(NAME 2) | recents://contact/$(ID 2)
$(NAME 1) | recents://contact/$(ID 1)
+ | recents://contact/new"
expect_status 0 as_widget
[ "$OUT" = "$EXPECTED" ] || fail "the widget's cells: expected [$EXPECTED], got [$OUT]"
ok "4 contacts viewed; the widget's provider decrypts the newest 3, newest first, each with its link"

RECENTS_FILE=$(find "$DEV/Containers/Shared/AppGroup/group.com.acme.recents" -name viewedContacts.json)
[ "$(printf '%s\n' "$RECENTS_FILE" | grep -c .)" = 1 ] || fail "viewedContacts.json: [$RECENTS_FILE]"
case "$RECENTS_FILE" in */AppGroup/group.com.acme.recents/group.com.acme.recents/Library/00D*/005*/internal/viewedContacts.json) ;; *) fail "not in the user's library directory: $RECENTS_FILE" ;; esac
for i in 1 2 3; do
  if grep -qa "$(ID $i)" "$RECENTS_FILE" || grep -qa "$(LAST $i)" "$RECENTS_FILE"; then fail "viewedContacts.json holds contact $i in plain text"; fi
done
expect_status 0 "$BIN/msdk-sim" inspect --device "$DEV"
contains "$OUT" "com.acme.recents: 4 reload(s)"
ok "the file is in the user's library directory in the group container, encrypted; WidgetCenter reloaded 4 times"

# A cell's link opens the contact in the app: msdk-sim device open-url launches the app's code.
expect_status 0 "$BIN/msdk-sim" device install --device "$DEV" --app "$R_APP"
expect_status 0 env APPGROUPSIM_MAIN_APP="$RBIN/recents-app" "$BIN/msdk-sim" device open-url --device "$DEV" "recents://contact/$(ID 1)"
contains "$OUT" "scene: contact $(ID 1): $(NAME 1)"
expect_status 0 env APPGROUPSIM_MAIN_APP="$RBIN/recents-app" "$BIN/msdk-sim" device open-url --device "$DEV" "recents://contact/new"
contains "$OUT" "scene: new contact"
expect_status 0 as_widget
contains "$(printf '%s\n' "$OUT" | head -1)" "$(NAME 1) | "
ok "the widget's link opened $(NAME 1) in the app's scene (and it became the newest viewed), contact/new the form"
WIDGET_NOW="$OUT"

# --- Field failures, each broken, then fixed. -------------------------------------------------------------
ENT="$R_WIDGET/RecentsWidget.entitlements"
cp "$ENT" "$WORK/widget.entitlements"
restore() { cp "$WORK/widget.entitlements" "$ENT"; }

# 1. The widget in another keychain group: it reaches neither the account key nor the viewed contacts' key
# (both in the app's group), so it has no current user and shows its placeholder. Nothing is deleted: the
# SDK would make a new account key there and delete the account files it cannot decrypt (DESIGN.md,
# destructive recovery); the SDK-named API keeps files, as main-app does without --sdk-recovery.
sed -i 's|com.acme.recents.shared|com.acme.recents.widget|' "$ENT"
ACCOUNTS_BEFORE=$(find "$DEV" -name UserAccount.plist | sort | xargs sha256sum)
expect_status 0 as_widget
[ "$(printf '%s\n' "$OUT" | head -1)" = placeholder ] || fail "another keychain group: the widget should show its placeholder: $OUT"
[ "$ACCOUNTS_BEFORE" = "$(find "$DEV" -name UserAccount.plist | sort | xargs sha256sum)" ] || fail "the widget in another keychain group changed the account files"
[ -n "$RECENTS_FILE" ] && [ -f "$RECENTS_FILE" ] || fail "the viewed contacts are gone"
expect_status 1 "$BIN/msdk-sim" doctor --app "$R_APP"
contains "$OUT" "keychain-group-differs"
restore
expect_status 0 as_widget
[ "$OUT" = "$WIDGET_NOW" ] || fail "fixed keychain group: $OUT"
ok "scenario widget-in-another-keychain-group: placeholder (no key reachable, nothing deleted), doctor: keychain-group-differs; fixed: the contacts"

# 2. The widget not entitled to the group: no current user directory: placeholder.
python3 - "$ENT" <<'PY'
import plistlib, sys
p = sys.argv[1]; d = plistlib.load(open(p, "rb")); d.pop("com.apple.security.application-groups"); plistlib.dump(d, open(p, "wb"))
PY
expect_status 0 as_widget
[ "$(printf '%s\n' "$OUT" | head -1)" = placeholder ] || fail "not entitled: the widget should show its placeholder: $OUT"
expect_status 1 "$BIN/msdk-sim" doctor --app "$R_APP"
contains "$OUT" "app-group-entitlement-missing"
restore
expect_status 0 as_widget
[ "$OUT" = "$WIDGET_NOW" ] || fail "fixed entitlement: $OUT"
ok "scenario widget-not-entitled: placeholder (no user directory), doctor: app-group-entitlement-missing; fixed: the contacts"

# 3. Two users: the widget shows the current user's viewed contacts only.
expect_status 0 main_app login --username bob@acme.test --password bob-pass
expect_status 0 as_app sync
expect_status 0 as_app view "$(ID 0)"
expect_status 0 as_widget
[ "$OUT" = "$(NAME 0) | recents://contact/$(ID 0)
+ | recents://contact/new" ] || fail "bob is current: the widget should show bob's one contact only: $OUT"
expect_status 0 "$BIN/msdk-sim" inspect --device "$DEV"
[ "$(printf '%s\n' "$OUT" | grep -c 'library: internal/viewedContacts.json')" = 2 ] || fail "inspect should list each user's viewedContacts.json: $OUT"
expect_status 0 main_app switch-user --username alice@acme.test
expect_status 0 as_widget
[ "$OUT" = "$WIDGET_NOW" ] || fail "alice is current again: $OUT"
ok "scenario two-users: the widget shows the current user's viewed contacts only (inspect lists each user's library files)"

# 4. Logout removes the user's directory: never the logged-out user's contacts again. With bob left, the SDK
# makes him current (handleLogout) and the widget shows his; after his logout, the placeholder.
ALICE_DIR=$(dirname "$RECENTS_FILE")
expect_status 0 main_app logout
[ ! -e "$ALICE_DIR" ] || fail "alice's library directory survived her logout: $(ls -R "$ALICE_DIR")"
expect_status 0 as_widget
[ "$OUT" = "$(NAME 0) | recents://contact/$(ID 0)
+ | recents://contact/new" ] || fail "after alice's logout the widget should show bob's contact only: $OUT"
expect_status 0 "$BIN/msdk-sim" inspect --device "$DEV"
[ "$(printf '%s\n' "$OUT" | grep -c 'library: internal/viewedContacts.json')" = 1 ] || fail "inspect should list only bob's file now: $OUT"
expect_status 0 main_app logout
expect_status 0 as_widget
[ "$(printf '%s\n' "$OUT" | head -1)" = placeholder ] || fail "with no user left the widget shows contacts: $OUT"
[ -z "$(find "$DEV" -name viewedContacts.json)" ] || fail "a viewedContacts.json survived the logouts: $(find "$DEV" -name viewedContacts.json)"
# Fixed: a new login, a new view, the widget shows it.
expect_status 0 main_app login --username alice@acme.test --password alice-pass
expect_status 0 as_app sync
expect_status 0 as_app view "$(ID 2)"
expect_status 0 as_widget
[ "$OUT" = "$(NAME 2) | recents://contact/$(ID 2)
+ | recents://contact/new" ] || fail "after a new login and view: $OUT"
ok "scenario logout: alice's directory is gone and the widget never shows her contacts (bob's, then the placeholder); a new login and view show again"
