#!/usr/bin/env bash
# The app and the widget as two real processes on one device: app-group flag, msdkUserDefaults,
# a secret shared through the keychain group, file modes, and outside tools reading our files.
source "$(dirname "$0")/../lib/integration.sh"
DEV="$WORK/device"
SUITE="$DEV/Containers/Shared/AppGroup/$GROUP/Library/Preferences/$GROUP.plist"

"$ROOT/scripts/with-keyring" bash -c "$(cat <<SCRIPT
set -euo pipefail
source "$ROOT/scripts/lib/integration.sh"
DEV="$DEV"

expect_status 0 "$BIN/main-app" --bundle "$APP" --device "$DEV" status --json
[ "\$(json_field "\$OUT" appGroupEnabled)" = True ] || fail "the fixture enables app groups"
ok "main-app applies AppGroupConfig.plist at launch"

expect_status 10 "$BIN/extension-widget" --bundle "$WIDGET" --device "$DEV" --json
[ "\$(json_field "\$OUT" state)" = notLoggedIn ] || fail "\$OUT"
ok "widget: notLoggedIn (exit 10) before the app sets userLoggedIn"

expect_status 0 "$BIN/msdk-sim" defaults write --bundle "$APP" --device "$DEV" userLoggedIn true --type bool
expect_status 0 "$BIN/msdk-sim" defaults read --bundle "$WIDGET" --device "$DEV" userLoggedIn
[ "\$OUT" = true ] || fail "the widget should read the app's flag, got \$OUT"
ok "the widget reads the app's userLoggedIn through the group suite"

expect_status 10 "$BIN/extension-widget" --bundle "$WIDGET" --device "$DEV" --json
contains "\$(json_field "\$OUT" message)" "no current user"
ok "widget: a set flag with no current user is still notLoggedIn"

python3 - "$SUITE" <<'PY'
import plistlib, sys
d = plistlib.load(open(sys.argv[1], 'rb'))
assert d['userLoggedIn'] is True and d['kAccessGroupEnabled'] is True, d
PY
ok "Python's plistlib reads the group suite"

printf 'refresh-token-for-test' | "$BIN/msdk-sim" keychain write --bundle "$APP" --device "$DEV" --service com.salesforce.mobilesdk.oauth.refresh >/dev/null
expect_status 0 sh -c "printf 'refresh-token-for-test' | '$BIN/msdk-sim' keychain read --bundle '$WIDGET' --device '$DEV' --service com.salesforce.mobilesdk.oauth.refresh --expect-stdin"
contains "\$OUT" "matches stdin"
ok "a secret written by the app is read by the widget through the shared keychain group"
DEVICE_ID=\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$DEV/device.json")
found=\$(secret-tool search --all device "\$DEVICE_ID" 2>&1 | grep -c '^attribute.service = com.salesforce.mobilesdk.oauth.refresh' || true)
[ "\$found" = 1 ] || fail "secret-tool search found \$found items"
ok "secret-tool search lists the item by its attributes"

expect_status 0 "$BIN/main-app" --bundle "$APP" --device "$DEV" app-group disable
expect_status 1 "$BIN/msdk-sim" defaults read --bundle "$WIDGET" --device "$DEV" userLoggedIn
ok "with app groups off the widget's msdkUserDefaults is its own and has no userLoggedIn"
expect_status 0 "$BIN/msdk-sim" defaults read --bundle "$APP" --device "$DEV" userLoggedIn
[ "\$OUT" = true ] || fail "the app keeps its value in standard defaults after the migration back"
ok "disabling copies the suite back into the app's standard defaults"

"$BIN/msdk-sim" keychain remove --bundle "$APP" --device "$DEV" --service com.salesforce.mobilesdk.oauth.refresh >/dev/null
left=\$(secret-tool search --all device "\$DEVICE_ID" 2>&1 | grep -c '^attribute.service' || true)
[ "\$left" = 0 ] || fail "\$left items left in the keyring"
ok "no item left behind"
SCRIPT
)"

bad=$(find "$DEV" \( -type d ! -perm 0700 \) -o \( -type f ! -perm 0600 \) | head -5)
[ -z "$bad" ] || fail "wrong modes: $bad"
ok "every directory is 0700 and every file 0600"

# Two writers on a 50-key suite at once, Python's plistlib reading the file all the while: every read
# parses to the whole suite, and no acknowledged write is lost (each key ends at its writer's last value).
SHARED="$WORK/shared.plist"
python3 - "$SHARED" <<'PY'
import plistlib, sys
plistlib.dump({f"w{w}-{k}": -1 for w in range(2) for k in range(25)}, open(sys.argv[1], "wb"))
PY
python3 - "$SHARED" "$WORK/stop" > "$WORK/reads" <<'PY' &
import os, plistlib, sys
reads = bad = 0
while not os.path.exists(sys.argv[2]):
    try:
        with open(sys.argv[1], "rb") as f:
            if len(plistlib.load(f)) != 50: bad += 1
    except Exception:
        bad += 1
    reads += 1
print(reads, bad)
PY
reader=$!
"$BIN/appgroupsim-probe" write-keys --file "$SHARED" --prefix w0- --count 400 --keys 25 > /dev/null &
w0=$!
"$BIN/appgroupsim-probe" write-keys --file "$SHARED" --prefix w1- --count 400 --keys 25 > /dev/null &
w1=$!
wait "$w0" || fail "writer 0 failed"
wait "$w1" || fail "writer 1 failed"
touch "$WORK/stop"
wait "$reader"
read -r reads bad < "$WORK/reads"
[ "$bad" = 0 ] && [ "$reads" -gt 0 ] || fail "plistlib: $bad of $reads reads did not parse to the 50 keys"
python3 - "$SHARED" <<'PY' || fail "a write was lost"
import plistlib, sys
d = plistlib.load(open(sys.argv[1], "rb"))
last = {k: max(i for i in range(400) if i % 25 == k) for k in range(25)}
wrong = [f"w{w}-{k}" for w in range(2) for k in range(25) if d[f"w{w}-{k}"] != last[k]]
assert not wrong and len(d) == 50, (wrong, len(d))
PY
ok "two writers rewrote a 50-key suite 800 times: plistlib parsed all $reads reads it made meanwhile, and no write was lost"

# scripts/with-keyring leaves nothing of its session in the temp directory. SwiftPM locks its manifest cache under the
# session's HOME with an empty file in TMPDIR named after that path; with a new HOME per session such files piled up,
# one set per swift command. A private TMPDIR (so that the sessions of scripts beside this one do not count) and a
# package of its own (so that no .build beside it is locked). SwiftPM as a developer's shell runs it: without
# scripts/test's one HOME for SwiftPM (scripts/lib/swiftpm/swift).
mkdir -p "$WORK/tmp" "$WORK/pkg/Sources/Tiny"
printf '// swift-tools-version:5.9\nimport PackageDescription\nlet package = Package(name: "Tiny", targets: [.target(name: "Tiny")])\n' > "$WORK/pkg/Package.swift"
echo "public let tiny = 1" > "$WORK/pkg/Sources/Tiny/Tiny.swift"
env -u APPGROUPSIM_SWIFTPM_HOME -u APPGROUPSIM_SWIFTPM_PATH TMPDIR="$WORK/tmp" "$ROOT/scripts/with-keyring" bash -c 'swift package describe --package-path "$1" >/dev/null && ls "$TMPDIR" | grep -c "_home_.cache_org.swift.swiftpm"' _ "$WORK/pkg" > "$WORK/inside" \
  || fail "swift package describe failed inside scripts/with-keyring"
[ "$(cat "$WORK/inside")" -ge 1 ] || fail "SwiftPM made no lock file for the session's HOME in TMPDIR: this check no longer checks anything"
left=$(ls "$WORK/tmp" | grep "appgroupsim-keyring" || true)
[ -z "$left" ] || fail "scripts/with-keyring left its session's files in TMPDIR: $left"
ok "scripts/with-keyring removes SwiftPM's lock files for its session's HOME ($(cat "$WORK/inside") made inside, none left)"
