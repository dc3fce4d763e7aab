#!/usr/bin/env bash
# Reliability with real processes: one app instance per device, two syncs at once, logins killed with
# SIGKILL, loose modes and dead writers' temp files, the WAL checkpoint at exit, unreadable files, and
# widgets reading while the app's first sync creates the store.
APPGROUPSIM_NEEDS_KEYRING=1 source "$(dirname "$0")/../lib/integration.sh"
DEV="$WORK/device"
start_org
app() { "$BIN/main-app" --bundle "$APP" --device "$DEV" --org "$ORG" "$@"; }
widget() { "$BIN/extension-widget" --bundle "$WIDGET" --device "$DEV" --json "$@"; }
count_local() { app contacts list --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }

expect_status 0 app login --username alice@acme.test --password alice-pass
expect_status 0 app sync

# --- One instance of the app per device; extensions are not blocked.
mkfifo "$WORK/shell.in"
"$BIN/main-app" --bundle "$APP" --device "$DEV" --org "$ORG" shell < "$WORK/shell.in" > "$WORK/shell.out" 2>&1 &
SHELL_PID=$!
exec 7> "$WORK/shell.in"
for _ in $(seq 1 200); do grep -q "scene(s) open" "$WORK/shell.out" 2>/dev/null && break; sleep 0.05; done
expect_status 1 env APPGROUPSIM_APP_LOCK_TIMEOUT=1 "$BIN/main-app" --bundle "$APP" --device "$DEV" status
contains "$ERR" "already running on this device (pid $SHELL_PID)"
[ "$(printf '%s\n' "$ERR" | grep -c .)" = 1 ] || fail "expected one line: $ERR"
expect_status 0 widget
ok "a second main-app waits for a running shell, then says so in one line; the widget runs beside it"
echo quit >&7
exec 7>&-
wait $SHELL_PID
expect_status 0 app status

# --- Two commands at once: the second waits for the first, and both land.
app contacts add --first Twin --last One > "$WORK/a1" 2>&1 & A1=$!
app contacts add --first Twin --last Two > "$WORK/a2" 2>&1 & A2=$!
wait $A1 || fail "the first add failed: $(cat "$WORK/a1")"
wait $A2 || fail "the second add failed: $(cat "$WORK/a2")"
for n in $(seq 1 18); do app contacts add --first Twin --last "More $n" > /dev/null; done
expect_status 0 app contacts list --json
[ "$(field "$OUT" 'sum(1 for c in d if c.get("FirstName") == "Twin")')" = 20 ] || fail "not every add landed"
app sync > "$WORK/s1" 2>&1 & S1=$!
app sync > "$WORK/s2" 2>&1 & S2=$!
wait $S1 || fail "sync 1: $(cat "$WORK/s1")"
wait $S2 || fail "sync 2: $(cat "$WORK/s2")"
expect_status 0 app contacts list --json
[ "$(field "$OUT" 'sum(1 for c in d if c.get("FirstName") == "Twin")')" = 20 ] || fail "two syncs at once duplicated: $(field "$OUT" 'sum(1 for c in d if c.get("FirstName") == "Twin")')"
[ "$(field "$OUT" 'sum(1 for c in d if c.get("__local__"))')" = 0 ] || fail "records left dirty"
[ "$(field "$OUT" 'len(d)')" = 1020 ] || fail "the org and store hold $(field "$OUT" 'len(d)') contacts, expected 1020"
ok "two syncs started at once: 20 local creates are 20 records at the org, none twice"

# --- The WAL is checkpointed at exit, so garbage over -wal loses nothing committed.
STORE=$(find "$DEV" -name store.sqlite | head -1)
[ -n "$STORE" ] || fail "no store"
expect_status 0 app contacts add --first Unsynced --last Edit
[ ! -s "$STORE-wal" ] || fail "main-app left $(stat -c %s "$STORE-wal") bytes in $STORE-wal"
head -c 65536 /dev/urandom > "$STORE-wal"
expect_status 0 app contacts list --json
[ "$(field "$OUT" 'sum(1 for c in d if c.get("FirstName") == "Unsynced" and c.get("__local__"))')" = 1 ] || fail "the unsynced edit was lost"
[ "$(field "$OUT" 'len(d)')" = 1021 ] || fail "the store lost records: $(field "$OUT" 'len(d)')"
ok "main-app checkpoints at exit: garbage over the -wal file loses no committed or unsynced record"

# --- A login killed with SIGKILL after the token exchange leaves live tokens; the next launch revokes them.
curl_admin() { python3 -c 'import json,sys,urllib.request; r=urllib.request.Request(sys.argv[1]+"/__admin/faults", data=sys.argv[2].encode(), method="POST", headers={"X-AppGroupSim-Admin-Token": sys.argv[3]}); print(urllib.request.urlopen(r).read().decode())' "$ORG" "$1" "$APPGROUPSIM_ADMIN_TOKEN"; }
curl_admin '{"latencyMs": 1500}' > /dev/null
"$BIN/main-app" --bundle "$APP" --device "$DEV" --org "$ORG" login --username bob@acme.test --password bob-pass > /dev/null 2>&1 &
LOGIN=$!
# alice's two token items hold values; bob's two more appear once his token exchange is done.
for _ in $(seq 1 400); do
  [ "$(live_token_items)" -ge 4 ] && break
  sleep 0.025
done
kill -9 $LOGIN 2>/dev/null || true
wait $LOGIN 2>/dev/null || true
curl_admin '{"latencyMs": 0}' > /dev/null
[ "$(live_token_items)" -ge 4 ] || fail "the login was not killed after its token exchange"
# Read from outside (inspect): any launch of the app, status included, would discard the orphan first.
expect_status 0 "$BIN/msdk-sim" inspect --device "$DEV" --json
[ "$(field "$OUT" '[a["username"] for a in d["accounts"]]')" = "['alice@acme.test']" ] || fail "the killed login left an account: $OUT"
expect_status 1 "$BIN/msdk-sim" doctor --app "$APP" --device "$DEV" --json
contains "$OUT" '"id" : "orphaned-token-items"'
ok "a login killed after the token exchange leaves live tokens and no account; doctor reports orphaned-token-items"
# Keep the orphan's refresh token (never printed) to ask the org about it afterwards.
# The account file is sealed; inspect decrypts it with the key from the keychain and names its items' account.
expect_status 0 "$BIN/msdk-sim" inspect --device "$DEV" --json
ALICE_KC=$(field "$OUT" '[a["keychainAccount"] for a in d["accounts"]][0]')
ORPHAN_KC=$(secret-tool search --all service com.salesforce.mobilesdk.oauth.refresh creator com.appgroupsim.sdk 2>&1 >/dev/null | sed -n 's/^attribute.account = //p' | grep -v "^$ALICE_KC$" | head -1)
[ -n "$ORPHAN_KC" ] || fail "cannot find the orphan's keychain account"
secret-tool lookup service com.salesforce.mobilesdk.oauth.refresh account "$ORPHAN_KC" > "$WORK/orphan.token" 2>/dev/null || fail "cannot read the orphan's token"
refresh_status() {
  python3 - "$ORG" "$WORK/orphan.token" <<'PY'
import sys, urllib.request, urllib.parse, urllib.error
token = open(sys.argv[2]).read().strip()
body = urllib.parse.urlencode({"grant_type": "refresh_token", "refresh_token": token,
    "client_id": "3MVG9AppGroupSim.MobileSyncExplorer.Sample", "format": "json"}).encode()
try:
    print(urllib.request.urlopen(sys.argv[1] + "/services/oauth2/token", data=body).status)
except urllib.error.HTTPError as e:
    print(e.code)
PY
}
[ "$(refresh_status)" = 200 ] || fail "the orphan's refresh token should still be live at the org before the cleanup"
expect_status 0 app contacts list --json
contains "$ERR" "revoked at the org and removed the tokens of 1 login(s)"
[ "$(refresh_status)" = 400 ] || fail "the org still accepts the orphan's refresh token"
grep -q . <<< "$(secret-tool search --all account "$ORPHAN_KC" 2>&1)" && fail "the orphan's items are still in the keychain"
expect_status 0 "$BIN/msdk-sim" doctor --app "$APP" --device "$DEV"
ok "the next launch revokes the orphan at the org (refresh now 400), removes its items, and doctor is clean"

# Killed at many points of a login: no live token without an account survives the next launch.
curl_admin '{"latencyMs": 120}' > /dev/null
for ms in 50 150 250 350 450 550 650 750 850 950 1050 1150; do
  "$BIN/main-app" --bundle "$APP" --device "$DEV" --org "$ORG" login --username bob@acme.test --password bob-pass > /dev/null 2>&1 &
  LOGIN=$!
  sleep "$(awk "BEGIN { print $ms / 1000 }")"
  kill -9 $LOGIN 2>/dev/null || true
  wait $LOGIN 2>/dev/null || true
done
curl_admin '{"latencyMs": 0}' > /dev/null
expect_status 0 app status
expect_status 0 app contacts list --json
expect_status 0 "$BIN/msdk-sim" inspect --device "$DEV" --json
LIVE=$(python3 - "$OUT" <<'PY'
import json, subprocess, sys
accounts = {a["keychainAccount"] for a in json.loads(sys.argv[1])["accounts"]}
# errors="replace": the account key's value is 32 random bytes, not text.
out = subprocess.run(["secret-tool", "search", "--all", "creator", "com.appgroupsim.sdk"], capture_output=True, text=True, errors="replace", check=True)
# stdout has the values, stderr the attributes, item by item in the same order.
values = [l[len("secret = "):] for l in out.stdout.splitlines() if l.startswith("secret = ")]
owners = [l[len("attribute.account = "):] for l in out.stderr.splitlines() if l.startswith("attribute.account = ")]
services = [l[len("attribute.service = "):] for l in out.stderr.splitlines() if l.startswith("attribute.service = ")]
live = [o for o, s, v in zip(owners, services, values) if "oauth" in s and v and o not in accounts]
print(len(live))
PY
)
[ "$LIVE" = 0 ] || fail "$LIVE live token item(s) without an account after 12 killed logins and a launch"
ok "12 logins killed at 50-1150 ms: after the next launch no live token is left without an account"

# --- Loose modes and dead writers' temp files: doctor says so, a launch repairs what it owns.
chmod -R a+rwX "$DEV"
SUITE_DIR="$DEV/Containers/Shared/AppGroup/$GROUP/Library/Preferences"
printf 'partial' > "$SUITE_DIR/.$GROUP.plist.tmp-999999-42"
expect_status 1 "$BIN/msdk-sim" doctor --app "$APP" --device "$DEV" --json
contains "$OUT" '"id" : "loose-modes"'
contains "$OUT" '"id" : "leftover-temp-files"'
expect_status 0 "$BIN/msdk-sim" inspect --device "$DEV"
contains "$OUT" "path(s) others can read"
contains "$OUT" "temp file(s) of killed writers"
expect_status 0 app status
contains "$ERR" "tightened"
contains "$ERR" "removed 1 temp file(s)"
[ -z "$(find "$DEV" "$DEV/device.json" "$DEV/Containers" "$DEV/Containers/Data" "$DEV/Containers/Shared" "$DEV/Containers/Shared/AppGroup" -maxdepth 0 -perm /077)" ] \
  || fail "the launch left loose modes on the way to what it owns"
LEFT=$(find "$DEV/Containers/Shared/AppGroup/$GROUP" "$DEV/Containers/Data/com.salesforce.mobilesdk.MobileSyncExplorer" -perm /077)
[ -z "$LEFT" ] || fail "loose modes left in what the app owns: $(printf '%s\n' "$LEFT" | head -3)"
[ ! -e "$SUITE_DIR/.$GROUP.plist.tmp-999999-42" ] || fail "the temp file is still there"
expect_status 0 app status
[ -z "$ERR" ] || fail "the second launch still had something to repair: $ERR"
ok "0777 and a dead writer's temp file: doctor reports both, one launch repairs and says so once"

# --- Files that are not what they should be: one clear line, nothing deleted.
mv "$SUITE_DIR/$GROUP.plist" "$WORK/suite.bak"
mkdir "$SUITE_DIR/$GROUP.plist"
expect_status 1 app status
contains "$ERR" "is a directory where a file belongs"
expect_status 13 widget
[ "$(field "$OUT" 'd["state"]')" = unreadable ] || fail "$OUT"
contains "$(field "$OUT" 'd["message"]')" "$GROUP.plist"
rmdir "$SUITE_DIR/$GROUP.plist"
printf 'not a plist' > "$SUITE_DIR/$GROUP.plist"
expect_status 13 widget
[ "$(field "$OUT" 'd["state"]')" = unreadable ] || fail "$OUT"
# As DESIGN.md §3 says: the bad file is moved aside, never discarded.
KEPT=$(ls "$SUITE_DIR" | grep "^$GROUP.plist.corrupt-" | head -1)
[ -n "$KEPT" ] && [ "$(cat "$SUITE_DIR/$KEPT")" = "not a plist" ] || fail "the corrupt suite was not kept aside: $(ls -a "$SUITE_DIR")"
contains "$(field "$OUT" 'd["message"]')" "$KEPT"
cp "$WORK/suite.bak" "$SUITE_DIR/$GROUP.plist"
ok "a directory or garbage where msdkUserDefaults belongs: main-app says so, the widget reports unreadable (13) as JSON, the bad file is kept aside"

DEV2="$WORK/device2"
mkdir -p "$DEV2/device.json"
expect_status 1 "$BIN/main-app" --bundle "$APP" --device "$DEV2" status
contains "$ERR" "device.json: is a directory where a file belongs"
case "$ERR" in *ermission*) fail "blames permissions: $ERR" ;; esac
ok "a directory at device.json names the problem, not permissions"

# One of the killed logins may have finished and made bob current; the store below is alice's.
expect_status 0 app switch-user --username alice@acme.test
cp "$STORE" "$WORK/store.bak"
rm -f "$STORE-wal" "$STORE-shm"
head -c 16384 /dev/urandom > "$STORE"
SUM=$(sha256sum "$STORE")
expect_status 13 widget
[ "$(field "$OUT" 'd["state"]')" = unreadable ] || fail "$OUT"
contains "$(field "$OUT" 'd["message"]')" "store.sqlite"
[ "$(sha256sum "$STORE")" = "$SUM" ] || fail "the widget changed the corrupt store"
cp "$WORK/store.bak" "$STORE"
expect_status 0 widget
ok "a corrupt store: the widget reports unreadable (13) as JSON and keeps the file"

# --- Widgets reading in a loop while the app's first sync creates the store: 20 rounds, 0 failures.
failures=0
for round in $(seq 1 20); do
  D="$WORK/race-$round"
  "$BIN/main-app" --bundle "$APP" --device "$D" --org "$ORG" login --username alice@acme.test --password alice-pass > /dev/null 2>&1 \
    || fail "round $round: login"
  : > "$WORK/stop"
  rm -f "$WORK/stop"
  READERS=()
  for w in 1 2 3 4; do
    ( set +e
      while [ ! -e "$WORK/stop" ]; do
        "$BIN/extension-widget" --bundle "$WIDGET" --device "$D" --json > /dev/null 2>> "$WORK/widget-$round.err"
        s=$?
        [ $s -eq 0 ] || [ $s -eq 10 ] || echo "widget exit $s" >> "$WORK/widget-$round.err"
      done ) &
    READERS+=($!)
  done
  if ! "$BIN/main-app" --bundle "$APP" --device "$D" --org "$ORG" sync > "$WORK/race-sync.out" 2>&1; then
    failures=$((failures + 1))
    echo "round $round: $(tail -1 "$WORK/race-sync.out")" >&2
  fi
  touch "$WORK/stop"
  wait "${READERS[@]}"
  if grep -q "widget exit" "$WORK/widget-$round.err" 2>/dev/null; then
    echo "round $round: $(grep "widget exit" "$WORK/widget-$round.err" | sort | uniq -c | head -3)" >&2
    failures=$((failures + 1))
  fi
  rm -rf "$D"
done
[ "$failures" = 0 ] || fail "$failures of 20 rounds failed"
ok "4 widgets looping while the app's first sync creates the store: 20 rounds, 0 failures"
