#!/usr/bin/env bash
# msdk-sim doctor on the good fixture and on broken ones, doctor --device and inspect on a real device,
# and every scenario (each one makes its own device, org and private keyring).
APPGROUPSIM_NEEDS_KEYRING=1 source "$(dirname "$0")/../lib/integration.sh"
DEV="$WORK/device"
sim() { "$BIN/msdk-sim" "$@"; }

expect_status 0 sim doctor --app "$APP"
contains "$OUT" "no finding"
ok "doctor: the good fixture is clean (exit 0)"

for broken in "$ROOT"/Fixtures/broken/*/; do
  id=$(basename "$broken")
  expect_status 1 sim doctor --app "$broken/MobileSyncExplorer.app" --json
  got=$(printf %s "$OUT" | python3 -c 'import json,sys; print(",".join(f["id"] for f in json.load(sys.stdin)))')
  [ "$got" = "$id" ] || fail "Fixtures/broken/$id gives: $got"
done
ok "doctor: each of $(ls -d "$ROOT"/Fixtures/broken/*/ | wc -l) broken fixtures gives exactly its finding (exit 1)"

expect_status 1 sim doctor --app "$ROOT/Fixtures/broken/keychain-group-differs/MobileSyncExplorer.app"
contains "$OUT" "✗ error   keychain-group-differs"
contains "$OUT" "fix: make the first entry of keychain-access-groups the same in both targets"
ok "doctor: the text report names the finding and its fix"

# A device: the sample's stale flag after the last logout, seen by doctor and inspect.
start_org
app() { "$BIN/main-app" --bundle "$APP" --device "$DEV" --org "$ORG" "$@"; }
expect_status 0 app login --username alice@acme.test --password alice-pass
expect_status 0 app sync
expect_status 0 sim doctor --app "$APP" --device "$DEV"
expect_status 0 sim inspect --device "$DEV"
contains "$OUT" "* alice@acme.test"
contains "$OUT" "contacts: 1000 entries"
contains "$OUT" "syncDownContacts  syncDown -> contacts  DONE 100%"
contains "$OUT" "com.salesforce.mobilesdk.oauth.refresh"
contains "$OUT" "bytes, redacted)"
expect_status 0 sim inspect --device "$DEV" --json
python3 - "$OUT" <<'PY' || fail "inspect --json: $OUT"
import json, sys
d = json.loads(sys.argv[1])
app = [t for t in d["targets"] if t["bundleIdentifier"] == "com.salesforce.mobilesdk.MobileSyncExplorer"][0]
assert app["appGroupEnabled"] and app["msdkUserDefaults"].startswith("group "), app
assert app["keys"]["userLoggedIn"] == "true", app
assert [a["username"] for a in d["accounts"]] == ["alice@acme.test"], d["accounts"]
PY
ok "inspect: msdkUserDefaults per process, the account, keychain items redacted, the store and its syncs"
# No secret value in anything inspect prints: the token values (text). The account and push keys are
# random bytes, whose whitespace-split fragments could match anything; inspect prints only their sizes.
checked=0
for item in $(sdk_items | awk '/^\[/{t=0} /^label = AppGroupSim com.salesforce.mobilesdk.oauth[.]/{t=1; next} t && /^secret = /{sub(/^secret = /, ""); print; t=0}'); do
  [ -n "$item" ] || continue
  checked=$((checked + 1))
  case "$OUT" in *"$item"*) fail "inspect printed a secret" ;; esac
done
[ "$checked" -ge 2 ] || fail "only $checked secret values were found to look for; the check proves nothing"
expect_status 0 app logout
expect_status 1 sim doctor --app "$APP" --device "$DEV" --json
contains "$OUT" '"id" : "stale-login-flag"'
ok "doctor --device: the stale userLoggedIn after the last logout"

SCENARIOS="keychain-locked-at-launch extension-migrates-first stale-login-flag widget-forces-flag extension-without-keychain-group
  killed-sync-up-duplicates notification-extension-without-keychain-group sdk-upgrade-widget-first
  backup-restored-to-new-device push-while-locked reinstall-finds-old-tokens"
# Every scenario the binary lists is run here.
LISTED=$(sim scenario list | awk '{print $1}' | sort | tr '\n' ' ')
[ "$LISTED" = "$(printf '%s\n' $SCENARIOS | sort | tr '\n' ' ')" ] || fail "msdk-sim lists scenarios ($LISTED) this script does not run"
source "$ROOT/scripts/lib/processes.sh"
for s in $SCENARIOS; do
  before=$(our_processes)
  expect_status 0 sim scenario "$s"
  # A scenario ends everything it started: its org, its apps, its private keyring's bus and daemon.
  leftover=$(new_processes "$before")
  [ -z "$leftover" ] || fail "scenario $s left running: $(printf '%s\n' "$leftover" | awk '{print $2}' | paste -sd, -)"
  contains "$OUT" "fix:"
  if [ "$s" = keychain-locked-at-launch ]; then
    contains "$OUT" "account file(s) and the store are kept"
    contains "$OUT" "is whenUnlocked, which iOS does not give out while the device is locked (errSecInteractionNotAllowed)"
    contains "$OUT" "the widget refreshing while locked says listed"
  fi
  if [ "$s" = killed-sync-up-duplicates ]; then
    contains "$OUT" "hold 60 of alice's 30 new contacts"
    contains "$OUT" "hold 30 of alice's 30 new contacts"
  fi
  if [ "$s" = sdk-upgrade-widget-first ]; then
    contains "$OUT" "iOS refreshes the widget first: it says dataProtected"
    contains "$OUT" "the last version kept is still 9.1.0"
    contains "$OUT" "AppGroupSim keeps it (the SDK would delete it and log alice out"
    contains "$OUT" "the upgrade runs again, and now can"
    contains "$OUT" "the widget refreshing while locked says listed"
  fi
  if [ "$s" = reinstall-finds-old-tokens ]; then
    contains "$OUT" "msdk-sim doctor: orphaned-token-items; the org still accepts alice's old refresh token"
    contains "$OUT" "the org refuses the old refresh token now, and the doctor finds no orphaned-token-items"
  fi
  if [ "$s" = push-while-locked ]; then
    contains "$OUT" 'extension-notification -> keychainUnavailable, the user sees "New notification"'
    contains "$OUT" 'the phone is locked; a notification arrives: shown, "Case 00001027 escalated"'
    contains "$OUT" 'before the first unlock: keychainUnavailable, "New notification"'
    contains "$OUT" 'after the unlock the kept payload decrypts: shown, "Case 00001028 escalated"'
  fi
  if [ "$s" = backup-restored-to-new-device ]; then
    contains "$OUT" "left behind: their class is …ThisDeviceOnly"
    contains "$OUT" "on the new phone the widget says notLoggedIn"
    contains "$OUT" "AppGroupSim sets the file aside"
    contains "$OUT" "the contact she added on the old phone is there (Backup Synced)"
  fi
  if [ "$s" = notification-extension-without-keychain-group ]; then
    contains "$OUT" 'misconfigured: the user sees "New notification"'
    contains "$OUT" 'shown: "Case 00001026 escalated"'
  fi
done
expect_status 0 sim scenario keychain-locked-at-launch --sdk-recovery
contains "$OUT" "no user is logged in"
contains "$OUT" "the file did not decrypt"
contains "$OUT" "deleted it as unreadable, with her store"
expect_status 0 sim scenario sdk-upgrade-widget-first --sdk-recovery
contains "$OUT" "alice is logged out (PR #3407's field failure)"
expect_status 0 sim scenario backup-restored-to-new-device --sdk-recovery
contains "$OUT" "the contact she added offline is gone with the store"
ok "every scenario reproduces as described; --sdk-recovery shows the SDK's deletion, the default keeps the files"
