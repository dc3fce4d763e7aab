#!/usr/bin/env bash
# The device's rules with the real binaries and a real keyring (issue 25): a bundle of another team that
# names the victim's app group and keychain group reads none of its account, tokens or contacts, and the
# doctor names it; a bundle id with '..' is refused before anything is made; a container that is a link is
# not written through; a directory AppGroupSim did not make becomes a device only with --init.
APPGROUPSIM_NEEDS_KEYRING=1 source "$(dirname "$0")/../lib/integration.sh"
DEV="$WORK/device"
start_org
app() { "$BIN/main-app" --bundle "$APP" --device "$DEV" --org "$ORG" "$@"; }

# The victim: alice logged in and synced; its widget lists her contacts.
expect_status 0 app login --username alice@acme.test --password alice-pass
expect_status 0 app sync
expect_status 0 "$BIN/extension-widget" --bundle "$WIDGET" --device "$DEV" --json
[ "$(field "$OUT" 'd["state"], len(d["contacts"]) > 0')" = "('listed', True)" ] || fail "the victim's widget: $OUT"

# The attacker: a copy of the app signed by another team, naming the victim's groups literally.
cp -R "$APP" "$WORK/Evil.app"
python3 - "$WORK/Evil.app" <<'EOF'
import glob, plistlib, sys
app = sys.argv[1]
def edit(p, f):
    d = plistlib.load(open(p, "rb")); f(d); plistlib.dump(d, open(p, "wb"))
for info, bundle_id in [(f"{app}/Info.plist", "com.evil.app")] + [(f"{x}/Info.plist", "com.evil.app." + x.split("/")[-1][:-6]) for x in glob.glob(f"{app}/PlugIns/*.appex")]:
    edit(info, lambda d: d.update(CFBundleIdentifier=bundle_id))
for e in glob.glob(f"{app}/*.entitlements") + glob.glob(f"{app}/PlugIns/*.appex/*.entitlements"):
    edit(e, lambda d: d.update({"com.apple.developer.team-identifier": "EVILTEAM01",
                                "keychain-access-groups": ["SIMTEAM001.com.salesforce.mobilesdk.MobileSyncExplorer"]}))
EOF
set +e
"$BIN/extension-widget" --bundle "$WORK/Evil.app/PlugIns/RecentContacts.appex" --device "$DEV" --json > "$WORK/evil.json" 2> "$WORK/evil.err"
status=$?
set -e
[ "$status" -ne 0 ] || fail "the attacker's widget listed: $(cat "$WORK/evil.json")"
EVIL=$(cat "$WORK/evil.json")
[ "$(field "$EVIL" 'd["user"], d["contacts"]')" = "(None, [])" ] || fail "the attacker's widget saw the victim: $EVIL"
case "$EVIL" in *alice*|*Acme*) fail "the victim's data reached the attacker: $EVIL" ;; esac
set +e
"$BIN/main-app" --bundle "$WORK/Evil.app" --device "$DEV" status --json > "$WORK/evil-status.json" 2>&1
set -e
case "$(cat "$WORK/evil-status.json")" in *alice@acme.test*) fail "the attacker's app sees alice: $(cat "$WORK/evil-status.json")" ;; esac
expect_status 1 "$BIN/msdk-sim" doctor --app "$WORK/Evil.app" --device "$DEV" --json
contains "$OUT" '"id" : "foreign-team-group"'
contains "$OUT" "belongs to team SIMTEAM001 on this device"
expect_status 0 "$BIN/extension-widget" --bundle "$WIDGET" --device "$DEV" --json
[ "$(field "$OUT" 'd["state"]')" = listed ] || fail "the victim's widget after the attack: $OUT"
ok "a bundle of another team naming the victim's groups gets no user and no contacts (exit $status); doctor says foreign-team-group; the victim still lists"

# A bundle id with '..': refused before anything is made, one line.
cp -R "$APP" "$WORK/Escape.app"
python3 -c 'import plistlib,sys; p=sys.argv[1]; d=plistlib.load(open(p,"rb")); d["CFBundleIdentifier"]="../../../../escaped"; plistlib.dump(d,open(p,"wb"))' "$WORK/Escape.app/Info.plist"
expect_status 1 timeout 20 "$BIN/main-app" --bundle "$WORK/Escape.app" --device "$DEV" status
[ "$(printf '%s\n' "$ERR" | grep -c .)" = 1 ] || fail "not one line: $ERR"
contains "$ERR" "CFBundleIdentifier"
[ ! -e "$WORK/escaped" ] && [ ! -e "$(dirname "$WORK")/escaped" ] || fail "a file was made outside the device"
ok "a bundle id with '..' is refused with one line; nothing is made outside the device"

# A container that is a link out of the device: refused, nothing written through it.
DEV2="$WORK/device2"
mkdir -p "$WORK/elsewhere"
"$BIN/main-app" --bundle "$APP" --device "$DEV2" status > /dev/null
rm -rf "$DEV2/Containers/Data/com.salesforce.mobilesdk.MobileSyncExplorer"
ln -s "$WORK/elsewhere" "$DEV2/Containers/Data/com.salesforce.mobilesdk.MobileSyncExplorer"
expect_status 1 "$BIN/main-app" --bundle "$APP" --device "$DEV2" status
contains "$ERR" "is a symbolic link, not a container"
[ -z "$(ls -A "$WORK/elsewhere")" ] || fail "written through the link: $(ls -A "$WORK/elsewhere")"
ok "a container that is a link out of the device is refused; nothing is written through it"

# A directory AppGroupSim did not make: refused without --init, adopted with it; its files are kept.
mkdir -p "$WORK/notes"
echo mine > "$WORK/notes/todo.txt"
expect_status 1 "$BIN/main-app" --bundle "$APP" --device "$WORK/notes" status
contains "$ERR" "is not an AppGroupSim device"
contains "$ERR" "--init"
[ ! -e "$WORK/notes/device.json" ] || fail "the directory was made a device without --init"
expect_status 1 "$BIN/msdk-sim" device apps --device "$WORK/notes"
expect_status 0 "$BIN/main-app" --bundle "$APP" --device "$WORK/notes" --init status
[ -e "$WORK/notes/device.json" ] && [ "$(cat "$WORK/notes/todo.txt")" = mine ] || fail "--init did not adopt the directory, or lost its file"
ok "a directory with files in it becomes a device only with --init, and keeps its files"
