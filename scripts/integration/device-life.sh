#!/usr/bin/env bash
# The device's lock state and the keychain's classes (issue 36), with the real binaries, the real keyring
# and outside clients: secret-tool shows each item's class; a locked device still gives afterFirstUnlock
# items to the widget and to a background launch; a foreground launch needs the unlock; a device before its
# first unlock gives nothing, and every refusal is one line that changes no file; a whenUnlocked app is the
# doctor's warning and cannot refresh its widget while locked.
APPGROUPSIM_NEEDS_KEYRING=1 source "$(dirname "$0")/../lib/integration.sh"
DEV="$WORK/device"
WIDGET="$APP/PlugIns/RecentContacts.appex"
NSE="$APP/PlugIns/NotificationService.appex"
BUNDLE_ID=com.salesforce.mobilesdk.MobileSyncExplorer
start_org
sim() { "$BIN/msdk-sim" "$@"; }
app() { "$BIN/main-app" --bundle "$APP" --device "$DEV" --org "$ORG" "$@"; }
widget() { "$BIN/extension-widget" --bundle "$WIDGET" --device "$DEV" "$@"; }
# files: every file of the device with its size and checksum (what no refusal may change).
files() { (cd "$DEV" && find . -type f ! -name lock-state ! -name '*.lock' ! -path './Notifications/*' -print0 | sort -z | xargs -0 sha256sum); }

# 1. The four commands and the state file.
expect_status 0 sim device state --device "$DEV"
contains "$OUT" "unlocked: every class"
expect_status 0 sim device reboot --device "$DEV"
expect_status 0 sim device lock --device "$DEV"
expect_status 0 sim device state --device "$DEV" --json
[ "$(field "$OUT" 'd["state"]')" = beforeFirstUnlock ] || fail "a device before its first unlock that is locked stays so: $OUT"
expect_status 0 sim device unlock --device "$DEV"
[ "$(cat "$DEV/lock-state")" = unlocked ] || fail "lock-state holds $(cat "$DEV/lock-state")"
ok "msdk-sim device reboot, lock, unlock and state: beforeFirstUnlock stays so when locked; the state is one word in DEVICE/lock-state"

# 2. Every item carries its class, as secret-tool (an outside client) shows it.
expect_status 0 app login --username alice@acme.test --password alice-pass
expect_status 0 app sync
ID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$DEV/device.json")
# (values are binary for the keys: NULs dropped, and items counted by their service attribute, never by a value's bytes)
secret-tool search --all device "$ID" 2>&1 | tr -d '\0' > "$WORK/items.txt"
CLASSES=$(sed -n 's/^attribute.accessible = //p' "$WORK/items.txt" | sort | uniq -c | awk '{print $2" "$1}' | paste -sd, -)
ITEMS=$(grep -ac '^attribute.service = ' "$WORK/items.txt")
[ "$ITEMS" -ge 4 ] || fail "only $ITEMS items on the device"
[ "$CLASSES" = "afterFirstUnlockThisDeviceOnly $ITEMS" ] || fail "each of the $ITEMS items should be afterFirstUnlockThisDeviceOnly: $CLASSES"
expect_status 0 sim inspect --device "$DEV" --json
[ "$(field "$OUT" 'sorted({i["accessible"] for g in d["keychain"].values() for i in g})')" = "['afterFirstUnlockThisDeviceOnly']" ] || fail "inspect: $OUT"
[ "$(field "$OUT" 'd["lockState"]')" = unlocked ] || fail "inspect's lock state"
ok "secret-tool shows each of the $ITEMS items of the device with attribute accessible = afterFirstUnlockThisDeviceOnly (the SDK's default); inspect too"

# 3. Locked: the widget and a background launch read afterFirstUnlock items; a foreground launch waits for the unlock.
expect_status 0 sim device lock --device "$DEV"
BEFORE=$(files)
expect_status 0 widget --json
[ "$(field "$OUT" 'd["state"]')" = listed ] || fail "the widget refreshing while locked: $OUT"
expect_status 1 app status
contains "$ERR" "the device is locked: a user opens the app only after unlocking it"
contains "$ERR" "main-app --background"
[ "$(printf '%s\n' "$ERR" | grep -c .)" = 1 ] || fail "more than one line: $ERR"
expect_status 0 app --background sync
contains "$OUT" "sync down: DONE"
ok "locked: the widget lists, main-app --background syncs; a foreground launch is refused in one line naming the unlock and --background"

# 4. Before the first unlock: nothing of the SDK's default classes (files completeUntilFirstUserAuthentication, items
#    afterFirstUnlockThisDeviceOnly) can be read; one line each, no file changed.
expect_status 0 sim device reboot --device "$DEV"
BEFORE=$(files)
expect_status 14 widget --json
[ "$(field "$OUT" 'd["state"]')" = dataProtected ] || fail "the widget before the first unlock: $OUT"
contains "$(field "$OUT" 'd["message"]')" "is protected completeUntilFirstUserAuthentication (NSFileProtectionCompleteUntilFirstUserAuthentication), which iOS does not open while the device is before its first unlock: Operation not permitted (EPERM"
expect_status 1 app --background sync
contains "$ERR" "UserAccount.plist is protected completeUntilFirstUserAuthentication"
contains "$ERR" "the account file was kept"
[ "$(printf '%s\n' "$ERR" | grep -c .)" = 1 ] || fail "more than one line: $ERR"
[ "$(files)" = "$BEFORE" ] || fail "a refusal changed files: $(diff <(echo "$BEFORE") <(files))"
# A push before the first unlock: the extension cannot read the push key, shows the fallback and keeps the payload.
admin_curl -s -o "$WORK/push.json" -w '%{http_code}' -X POST "$ORG/__admin/push" -H 'Content-Type: application/json' \
  -d '{"username": "alice@acme.test", "title": "Case 00001026 escalated", "body": "Call back"}' > "$WORK/push.code"
[ "$(cat "$WORK/push.code")" = 200 ] || fail "push: $(cat "$WORK/push.json")"
set +e
NOTE=$("$BIN/extension-notification" --bundle "$NSE" --device "$DEV" --json 2>"$WORK/nse.err")
NOTE_STATUS=$?
set -e
[ "$NOTE_STATUS" = 12 ] || fail "the notification extension before the first unlock exited $NOTE_STATUS: $NOTE $(cat "$WORK/nse.err")"
contains "$NOTE" "before its first unlock"
KEPT=$(ls "$DEV/Notifications/$BUNDLE_ID/delivered/"*.json 2>/dev/null | head -1)
[ -n "$KEPT" ] || fail "the payload was not kept (inbox: $(ls "$DEV/Notifications/$BUNDLE_ID/inbox"))"
ok "before the first unlock: the widget says dataProtected (14) naming its file, the class and the state, a background sync stops in one line keeping the account file, a push cannot read the push key and shows the fallback (12), its payload kept in delivered/; no file changed"

# 5. Unlocked again: everything is there, the push too.
expect_status 0 sim device unlock --device "$DEV"
expect_status 0 widget --json
[ "$(field "$OUT" 'd["state"]')" = listed ] || fail "after the unlock: $OUT"
expect_status 0 "$BIN/extension-notification" --bundle "$NSE" --device "$DEV" --json --payload "$KEPT"
[ "$(field "$OUT" 'd["title"]')" = "Case 00001026 escalated" ] || fail "the kept push after the unlock: $OUT"
ok "after the unlock: alice is still logged in, the widget lists, the kept push decrypts"

# 6. An app that makes its items whenUnlocked (AppGroupConfig.plist keychainAccessibility): the doctor warns, and the
#    widget cannot refresh while locked.
cp -r "$APP" "$WORK/Locked.app"
python3 -c 'import plistlib,sys; p=sys.argv[1]; d=plistlib.load(open(p,"rb")); d["keychainAccessibility"]="whenUnlocked"; plistlib.dump(d,open(p,"wb"))' "$WORK/Locked.app/AppGroupConfig.plist"
expect_status 1 sim doctor --app "$WORK/Locked.app"
contains "$OUT" "keychain-class-when-unlocked"
DEV2="$WORK/device2"
expect_status 0 "$BIN/main-app" --bundle "$WORK/Locked.app" --device "$DEV2" --org "$ORG" login --username alice@acme.test --password alice-pass
ID2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$DEV2/device.json")
[ "$(secret-tool search --all device "$ID2" creator com.appgroupsim.sdk 2>&1 | tr -d '\0' | sed -n 's/^attribute.accessible = //p' | sort -u)" = whenUnlocked ] || fail "the app's items are not whenUnlocked"
expect_status 0 sim device lock --device "$DEV2"
expect_status 12 "$BIN/extension-widget" --bundle "$WORK/Locked.app/PlugIns/RecentContacts.appex" --device "$DEV2" --json
[ "$(field "$OUT" 'd["state"]')" = keychainUnavailable ] || fail "a whenUnlocked app's widget while locked: $OUT"
contains "$(field "$OUT" 'd["message"]')" "is whenUnlocked, which iOS does not give out while the device is locked"
ok "keychainAccessibility whenUnlocked: doctor says keychain-class-when-unlocked; secret-tool shows whenUnlocked items; the widget cannot refresh while locked"

# 7. A lock-state file this version cannot read: one line naming it, and nothing given out.
printf 'sideways\n' > "$DEV/lock-state"
expect_status 1 sim device state --device "$DEV"
contains "$ERR" "lock-state cannot be read: it holds 'sideways'"
expect_status 14 widget --json
[ "$(field "$OUT" 'd["state"]')" = dataProtected ] || fail "an unreadable state must give out nothing: $OUT"
expect_status 0 sim device unlock --device "$DEV"
ok "an unreadable lock-state: msdk-sim names the file and the fix; the processes give out nothing (the strictest state)"

# 8. Uninstall, then install again: the containers (the app's, its extensions', the group's with its last app) go,
#    the keychain keeps every item; the reinstalled app is logged out, and its first launch forgets a screen-lock
#    passcode no account needs (the SDK's checkForScreenLockUsers, "because keychain values can outlive the app").
expect_status 0 app login --username carol@globex.test --password carol-pass --passcode 1234
expect_status 0 sim device install --device "$DEV" --app "$APP"
contains "$OUT" "installed $BUNDLE_ID"
expect_status 0 sim device install --device "$DEV" --app "$APP"
contains "$OUT" "updated $BUNDLE_ID"
contains "$OUT" "its data is kept"
[ -d "$DEV/Containers/Data/$BUNDLE_ID" ] || fail "an update removed the app's container"
secret-tool search --all device "$ID" 2>&1 | tr -d '\0' > "$WORK/before-uninstall.txt"
ITEMS_BEFORE=$(grep -ac '^attribute.service = ' "$WORK/before-uninstall.txt")
grep -aq "screenlock.passcode" "$WORK/before-uninstall.txt" || fail "no screen-lock passcode item after carol's login"
expect_status 0 sim device uninstall --device "$DEV" "$BUNDLE_ID"
contains "$OUT" "Containers/Data/$BUNDLE_ID"
contains "$OUT" "Containers/Shared/AppGroup/group.com.salesforce.mobilesdk.MobileSyncExplorer"
contains "$OUT" "the keychain keeps the app's items"
[ ! -e "$DEV/Containers/Data/$BUNDLE_ID" ] && [ ! -e "$DEV/Containers/Data/$BUNDLE_ID.RecentContacts" ] || fail "a container is left: $(ls "$DEV/Containers/Data")"
[ ! -e "$DEV/Containers/Shared/AppGroup/group.com.salesforce.mobilesdk.MobileSyncExplorer" ] || fail "the group container is left"
[ "$(secret-tool search --all device "$ID" 2>&1 | tr -d '\0' | grep -ac '^attribute.service = ')" = "$ITEMS_BEFORE" ] || fail "the uninstall changed the keychain"
expect_status 1 sim device uninstall --device "$DEV" "$BUNDLE_ID"
contains "$ERR" "is neither installed nor has a container on this device"
# Installed again as the SDK's default is (the sample revokes what a previous install left: scenario k's fix).
cp -R "$APP" "$WORK/SDKDefault.app"
python3 -c 'import plistlib,sys; p=sys.argv[1]; d=plistlib.load(open(p,"rb")); del d["revokeTokensOfPreviousInstall"]; plistlib.dump(d,open(p,"wb"))' "$WORK/SDKDefault.app/AppGroupConfig.plist"
sdk_default() { "$BIN/main-app" --bundle "$WORK/SDKDefault.app" --device "$DEV" --org "$ORG" "$@"; }
expect_status 0 sim device install --device "$DEV" --app "$WORK/SDKDefault.app"
expect_status 0 sdk_default status --json
[ "$(field "$OUT" 'd["accounts"]')" = "[]" ] || fail "the reinstalled app has accounts: $OUT"
expect_status 1 sdk_default --trace "$WORK/reinstall.trace" sync
contains "$ERR" "the screen-lock passcode left in the keychain was forgotten"
contains "$ERR" "no user is logged in"
grep -q '"step":"screenLockPasscodeForgotten"' "$WORK/reinstall.trace" || fail "no screenLockPasscodeForgotten in the trace"
secret-tool search --all device "$ID" 2>&1 | tr -d '\0' > "$WORK/after.txt"
grep -aq "screenlock.passcode" "$WORK/after.txt" && fail "the passcode is still in the keychain"
grep -aq "com.salesforce.mobilesdk.oauth.refresh" "$WORK/after.txt" || fail "the old users' tokens should outlive the app"
ok "uninstall: the app's, its widget's and the group's containers removed, the keychain untouched ($ITEMS_BEFORE items); an update keeps the data; reinstalled: no account, the old tokens still in the keychain, and the passcode no account needs forgotten at the first launch"

# 9. File protection classes: each file carries its class as an extended attribute (os.getxattr, an outside client,
#    reads it). An app that makes its files complete (AppGroupConfig.plist fileProtection): the doctor warns; while
#    locked the widget cannot open the account file; a background launch keeps the file and says so in one line;
#    with --sdk-recovery the SDK's persister deletes the file it cannot read, and the user is logged out.
xattr() { python3 -c 'import os,sys
try: print(os.getxattr(sys.argv[1], "user.msdk.protection").decode())
except OSError: print("-")' "$1"; }
cp -r "$APP" "$WORK/Complete.app"
python3 -c 'import plistlib,sys; p=sys.argv[1]; d=plistlib.load(open(p,"rb")); d["fileProtection"]="NSFileProtectionComplete"; plistlib.dump(d,open(p,"wb"))' "$WORK/Complete.app/AppGroupConfig.plist"
expect_status 1 sim doctor --app "$WORK/Complete.app"
contains "$OUT" "file-protection-complete"
DEV3="$WORK/device3"
capp() { "$BIN/main-app" --bundle "$WORK/Complete.app" --device "$DEV3" --org "$ORG" "$@"; }
expect_status 0 capp login --username alice@acme.test --password alice-pass
expect_status 0 capp sync
GROUP_ROOT="$DEV3/Containers/Shared/AppGroup/group.com.salesforce.mobilesdk.MobileSyncExplorer/group.com.salesforce.mobilesdk.MobileSyncExplorer"
ACCOUNT=$(find "$GROUP_ROOT/Library" -name UserAccount.plist | head -1)
STORE=$(find "$GROUP_ROOT" -name store.sqlite | head -1)
[ "$(xattr "$ACCOUNT")" = complete ] || fail "the account file's class: $(xattr "$ACCOUNT")"
[ "$(xattr "$STORE")" = completeUntilFirstUserAuthentication ] || fail "the store's class (the SDK gives every store completeUntilFirstUserAuthentication): $(xattr "$STORE")"
expect_status 0 sim device lock --device "$DEV3"
expect_status 14 "$BIN/extension-widget" --bundle "$WORK/Complete.app/PlugIns/RecentContacts.appex" --device "$DEV3" --json
contains "$(field "$OUT" 'd["message"]')" "UserAccount.plist is protected complete (NSFileProtectionComplete), which iOS does not open while the device is locked"
# (the widget's first launch wrote its own defaults: from here on, nothing may change)
BEFORE3=$(cd "$DEV3" && find . -type f ! -name lock-state ! -name '*.lock' -print0 | sort -z | xargs -0 sha256sum)
expect_status 1 capp --background sync
contains "$ERR" "the account file was kept (the SDK's persister deletes an account file it cannot read"
AFTER3=$(cd "$DEV3" && find . -type f ! -name lock-state ! -name '*.lock' -print0 | sort -z | xargs -0 sha256sum)
[ "$AFTER3" = "$BEFORE3" ] || fail "a refusal changed files: $(diff <(echo "$BEFORE3") <(echo "$AFTER3"))"
set +e; capp --background --sdk-recovery sync >"$WORK/rec.out" 2>"$WORK/rec.err"; set -e
contains "$(cat "$WORK/rec.err")" "the SDK's recovery deleted the account(s) it could not"
[ ! -e "$ACCOUNT" ] || fail "--sdk-recovery: the SDK deletes the account file it cannot read"
expect_status 0 sim device unlock --device "$DEV3"
expect_status 0 capp status --json
[ "$(field "$OUT" 'd["accounts"]')" = "[]" ] || fail "after the SDK's reaction, once unlocked: $OUT"
ok "file classes: os.getxattr shows complete on the account file and completeUntilFirstUserAuthentication on the store; fileProtection complete is the doctor's warning; locked, the widget says dataProtected and a background launch keeps the file in one line; --sdk-recovery deletes it, as the SDK's persister does"

# 10. Backup and restore: plistlib (an outside client) reads the backup's file list with each file's class; the
#     keychain items of the …ThisDeviceOnly classes stay behind and the others are carried in the Secret Service
#     (secret-tool finds them under the backup's id), never in the file. An app whose items are afterFirstUnlock
#     (not ThisDeviceOnly) carries its wrapped account key, but never the EC key pair that unwraps it (always
#     afterFirstUnlockThisDeviceOnly): on the new phone it is logged out too (the SDK's 9.2 restore bug; scenario
#     backup-restored-to-new-device shows the SDK's default class).
cp -r "$APP" "$WORK/Carried.app"
python3 -c 'import plistlib,sys; p=sys.argv[1]; d=plistlib.load(open(p,"rb")); d["keychainAccessibility"]="afterFirstUnlock"; plistlib.dump(d,open(p,"wb"))' "$WORK/Carried.app/AppGroupConfig.plist"
DEV5="$WORK/device5"
kapp() { "$BIN/main-app" --bundle "$WORK/Carried.app" --device "$DEV5" --org "$ORG" "$@"; }
expect_status 0 kapp login --username alice@acme.test --password alice-pass
expect_status 0 kapp sync
expect_status 0 sim device install --device "$DEV5" --app "$WORK/Carried.app"
expect_status 0 sim device lock --device "$DEV5"
expect_status 1 sim device backup --device "$DEV5" --out "$WORK/locked.backup"
contains "$ERR" "iOS asks for the passcode before a backup"
[ ! -e "$WORK/locked.backup" ] || fail "a refused backup wrote a file"
expect_status 0 sim device unlock --device "$DEV5"
expect_status 0 sim device backup --device "$DEV5" --out "$WORK/phone.backup"
BACKUP_ID=$(printf '%s\n' "$OUT" | sed -n 's/.*backup \([0-9A-F-]\{36\}\)).*/\1/p')
[ -n "$BACKUP_ID" ] || fail "no backup id in: $OUT"
python3 - "$WORK/phone.backup" <<'PY' || fail "plistlib could not read the backup as described"
import plistlib, sys, hashlib
d = plistlib.load(open(sys.argv[1], "rb"))
files = {f["Path"]: f for f in d["Files"]}
account = [p for p in files if p.endswith("/UserAccount.plist")]
store = [p for p in files if p.endswith("/store.sqlite")]
assert len(account) == 1 and store, sorted(files)
assert files[account[0]]["Protection"] == "completeUntilFirstUserAuthentication", files[account[0]]
assert all(hashlib.sha256(d["Contents"][p]).hexdigest() == f["SHA256"] for p, f in files.items())
assert not any("/Library/Caches/" in p for p in files), "caches are not backed up"
assert d["Keychain"]["Items"] >= 4 and d["Keychain"]["LeftOutThisDeviceOnly"] == 2, d["Keychain"]  # the EC key pair
PY
# No secret of the keychain is in the file: each item's value, as secret-tool gives it, is looked for in the bytes.
secret-tool search --all --unlock backup "$BACKUP_ID" 2>&1 | tr -d '\0' > "$WORK/carried.txt"
CARRIED=$(grep -ac '^attribute.service = ' "$WORK/carried.txt")
[ "$CARRIED" -ge 4 ] || fail "secret-tool finds $CARRIED items under the backup's id"
[ "$(sed -n 's/^attribute.accessible = //p' "$WORK/carried.txt" | sort -u)" = afterFirstUnlock ] || fail "carried classes: $(sed -n 's/^attribute.accessible = //p' "$WORK/carried.txt" | sort -u)"
python3 - "$WORK/phone.backup" "$WORK/carried.txt" <<'PY' || fail "a keychain secret is in the backup file"
import sys
data = open(sys.argv[1], "rb").read()
secrets = [l[len("secret = "):].strip() for l in open(sys.argv[2], encoding="utf-8", errors="replace") if l.startswith("secret = ")]
printable = [s for s in secrets if len(s) >= 16]
assert printable, "no secret value to look for: the check would prove nothing"
assert not any(s.encode() in data for s in printable), "a secret is in the file"
PY
expect_status 0 sim device restore "$WORK/phone.backup" --device "$WORK/restored"
contains "$OUT" "restored"
NEWID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$WORK/restored/device.json")
OLDID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$DEV5/device.json")
[ "$NEWID" != "$OLDID" ] || fail "the restored device has the old id"
[ "$(secret-tool search --all device "$NEWID" 2>&1 | tr -d '\0' | grep -ac '^attribute.service = ')" = "$CARRIED" ] || fail "the new device's items"
ACC2=$(find "$WORK/restored/Containers" -name UserAccount.plist | head -1)
[ "$(xattr "$ACC2")" = completeUntilFirstUserAuthentication ] || fail "the restored account file's class: $(xattr "$ACC2")"
secret-tool search --all device "$NEWID" 2>&1 | tr -d '\0' | grep -aq 'com.salesforce.eckey' && fail "the EC key pair came along"
expect_status 10 "$BIN/extension-widget" --bundle "$WORK/Carried.app/PlugIns/RecentContacts.appex" --device "$WORK/restored" --json
[ "$(field "$OUT" 'd["state"]')" = notLoggedIn ] || fail "on the restored phone: $OUT"
contains "$(field "$OUT" 'd["message"]')" "wrapped with the EC key pair com.salesforce.eckey.private.defaultKey, which is not on this device"
set +e; "$BIN/main-app" --bundle "$WORK/Carried.app" --device "$WORK/restored" --org "$ORG" sync 2>"$WORK/restored.err"; set -e
contains "$(cat "$WORK/restored.err")" "set aside as UserAccount.plist.unreadable"
expect_status 1 sim device restore "$WORK/phone.backup" --device "$WORK/restored"
contains "$ERR" "already holds a device"
printf 'not a backup' > "$WORK/bogus.backup"
expect_status 1 sim device restore "$WORK/bogus.backup" --device "$WORK/bogus-device"
contains "$ERR" "is not an AppGroupSim device backup (not a binary property list); nothing was restored"
[ ! -e "$WORK/bogus-device" ] || fail "a refused restore made a device"
# A damaged binary list that crashed Foundation's reader (and so this restore, SIGSEGV) is refused by name.
expect_status 1 sim device restore "$ROOT/Tests/Fuzz/Plist/corpus/regression-binary-set-crashes-foundation" --device "$WORK/crash-device"
contains "$ERR" "(a damaged binary property list: "
[ ! -e "$WORK/crash-device" ] || fail "a refused restore made a device"
# A backup that names one stored 1 MB value from more files than this machine has megabytes of memory (plistlib, like
# Foundation's encoder, stores identical bytes once: a file of a few MB): refused as too large before it is decoded,
# by name, with no device made and the restore's own peak memory far under the gigabytes it would have decoded to.
BOMB=$(python3 - "$WORK/bomb.backup" "$BIN/msdk-sim" "$WORK/bomb-device" <<'PY'
import hashlib, os, plistlib, subprocess, sys
memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
one = b"x" * 1_000_000
n = memory // len(one) + 1000
files = [{"Path": f"Containers/Shared/AppGroup/g/f{i}", "Protection": "none", "Size": len(one), "SHA256": hashlib.sha256(one).hexdigest()} for i in range(n)]
archive = {"Format": "AppGroupSim device backup 1", "BackupID": "B", "Device": {"ID": "D"}, "Apps": {}, "Files": files,
           "Contents": {f["Path"]: one for f in files}, "Keychain": {"Items": 0, "LeftOutThisDeviceOnly": 0}}
open(sys.argv[1], "wb").write(plistlib.dumps(archive, fmt=plistlib.FMT_BINARY))
size = os.path.getsize(sys.argv[1])
child = subprocess.Popen([sys.argv[2], "device", "restore", sys.argv[1], "--device", sys.argv[3]], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
_, status, usage = os.wait4(child.pid, 0)
err = child.stderr.read()
assert os.waitstatus_to_exitcode(status) == 1, (status, err)
assert "is too large to restore here: its files add up to" in err and "nothing was restored" in err, err
assert not os.path.exists(sys.argv[3]), "a device was made"
assert usage.ru_maxrss < 1_000_000, f"the refused restore peaked at {usage.ru_maxrss} KB"
print(f"{size // 1_000_000} MB naming {n} files of 1 MB, its restore's peak {usage.ru_maxrss // 1000} MB")
PY
) || fail "the backup that expands past memory: $BOMB"
# plistlib (an outside writer) writes the backup again with the same keys: it restores to the same files.
python3 - "$WORK/phone.backup" "$WORK/rewritten.backup" <<'PY' || fail "plistlib could not write the backup again"
import plistlib, sys
archive = plistlib.load(open(sys.argv[1], "rb"))
plistlib.dump(archive, open(sys.argv[2], "wb"), fmt=plistlib.FMT_BINARY)
PY
expect_status 0 sim device restore "$WORK/rewritten.backup" --device "$WORK/rewritten"
python3 - "$WORK/phone.backup" "$WORK/rewritten" <<'PY' || fail "the backup plistlib wrote again restores other files"
import hashlib, os, plistlib, sys
archive = plistlib.load(open(sys.argv[1], "rb"))
assert archive["Files"], "no files in the backup"
for entry in archive["Files"]:
    path = os.path.join(sys.argv[2], entry["Path"])
    assert hashlib.sha256(open(path, "rb").read()).hexdigest() == entry["SHA256"], path
    assert os.getxattr(path, "user.msdk.protection").decode() == entry["Protection"], path
PY
ok "backup: refused while locked; plistlib reads the file list with each file's class and checksum, no cache; the $CARRIED afterFirstUnlock items carried in the Secret Service (secret-tool: backup $BACKUP_ID), none of their values in the file, the EC key pair left behind; restore: a new device id, the items and classes back, but the wrapped account key cannot be unwrapped there: the widget says notLoggedIn, the app sets the account file aside; a second restore onto it, a file that is no backup, a damaged one that crashed Foundation and one that would decode past the machine's memory ($BOMB) refused by name; the file plistlib wrote again restores the same files"
