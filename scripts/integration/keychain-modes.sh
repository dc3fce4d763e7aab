#!/usr/bin/env bash
# Nothing deleted that cannot be completed. With the keychain unusable in each way a device meets it
# (no D-Bus, a stale bus address, a bus with no Secret Service, a bus that accepts and never answers,
# a locked keyring), logout, switch-user, sync and contacts list change nothing, exit non-zero and
# say "keychain unavailable" with the reason; status still reports; the widget says
# keychainUnavailable (12); nothing hangs. Then --sdk-recovery shows the SDK's deletion, complete.
APPGROUPSIM_NEEDS_KEYRING=1 source "$(dirname "$0")/../lib/integration.sh"
DEV="$WORK/device"
start_org
app() { "$BIN/main-app" --bundle "$APP" --device "$DEV" --org "$ORG" "$@"; }

expect_status 0 app login --username bob@acme.test --password bob-pass
expect_status 0 app login --username alice@acme.test --password alice-pass
expect_status 0 app sync
SUITE="$DEV/Containers/Shared/AppGroup/$GROUP/Library/Preferences/$GROUP.plist"

# What must not change: every account file and store (path and content) and LastUserIdentity.
snapshot() {
  (cd "$DEV" && find . -name UserAccount.plist -o -name store.sqlite | sort | xargs sha256sum)
  python3 -c 'import plistlib,sys; print(plistlib.load(open(sys.argv[1], "rb")).get("LastUserIdentity"))' "$SUITE"
}
# The store's last words are in its -wal file while a process has it open; main-app checkpoints at exit.
BEFORE=$(snapshot)
grep -q store.sqlite <<< "$BEFORE" || fail "no store to protect: $BEFORE"
grep -q "0055g00000AliceAAA" <<< "$BEFORE" || fail "alice is not the current user: $BEFORE"

# What one listing launch of the widget asks the Secret Service (issue "Speed": the fewest round trips).
# dbus-monitor sees every method call to gnome-keyring: one session; the account key and the private half of
# the EC key pair it is wrapped with, read ahead while the widget reads its files: one SearchItems each and one
# GetSecrets for both; then the refresh token: one SearchItems and one GetSecrets. No proxy for an item or a
# collection (their GetAll), no ReadAlias. More calls than these would be a slower launch, fewer a read skipped.
dbus-monitor --session "type='method_call',destination='org.freedesktop.secrets'" > "$WORK/monitor.txt" 2>&1 &
MONITOR=$!
for _ in $(seq 1 600); do grep -q NameAcquired "$WORK/monitor.txt" 2>/dev/null && break; sleep 0.05; done
grep -q NameAcquired "$WORK/monitor.txt" || fail "dbus-monitor did not start: $(cat "$WORK/monitor.txt")"
expect_status 0 "$BIN/extension-widget" --bundle "$WIDGET" --device "$DEV" --json
[ "$(field "$OUT" 'len(d["contacts"])')" = 3 ] || fail "the widget did not list: $OUT"
sleep 0.5
kill $MONITOR 2>/dev/null || true
wait $MONITOR 2>/dev/null || true
CALLS=$(grep -o 'member=[A-Za-z]*' "$WORK/monitor.txt" | sed 's/member=//' | grep -v '^Name' | sort | uniq -c | awk '{printf "%s %s; ", $2, $1}')
[ "$CALLS" = "GetAll 1; GetSecrets 2; OpenSession 1; SearchItems 3; " ] || fail "the widget's calls to the Secret Service: $CALLS"
grep -q 'path=/org/freedesktop/secrets;' <<< "$(grep 'member=GetAll' "$WORK/monitor.txt")" || fail "GetAll was not the service's own: $(grep 'member=GetAll' "$WORK/monitor.txt")"
ok "one widget launch asks the Secret Service: $CALLS(the service's properties, one session, three items, two of them in one GetSecrets)"

# check_mode NAME REASON ENV...: every changing command refuses, nothing changes.
check_mode() {
  local name=$1 reason=$2; shift 2
  for cmd in "logout" "switch-user --username bob@acme.test" "sync" "contacts list --json" "contacts add --last Nobody"; do
    # shellcheck disable=SC2086
    expect_status 1 env "$@" timeout 60 "$BIN/main-app" --bundle "$APP" --device "$DEV" --org "$ORG" $cmd
    contains "$ERR" "keychain unavailable"
    contains "$ERR" "$reason"
    contains "$ERR" "nothing was changed"
    case "$ERR" in *"no user is logged in"*) fail "$name: $cmd blames the user: $ERR" ;; esac
    [ "$(printf '%s\n' "$ERR" | grep -c .)" = 1 ] || fail "$name: $cmd: expected one line on stderr, got: $ERR"
  done
  [ "$(snapshot)" = "$BEFORE" ] || fail "$name: the device changed: $(snapshot)"
  expect_status 0 env "$@" timeout 60 "$BIN/main-app" --bundle "$APP" --device "$DEV" status --json
  # The account files are sealed with a key the keychain keeps: status names the user by her ids.
  [ "$(field "$OUT" 'd["currentUser"]')" = "00D5g00000AcmeeEAA/0055g00000AliceAAA (sealed; the account key cannot be read)" ] || fail "$name: status: $OUT"
  contains "$(field "$OUT" 'd["keychain"]')" "keychain unavailable"
  expect_status 12 env "$@" timeout 60 "$BIN/extension-widget" --bundle "$WIDGET" --device "$DEV" --json
  [ "$(field "$OUT" 'd["state"]')" = keychainUnavailable ] || fail "$name: widget: $OUT"
  ok "$name: logout, switch-user, sync, contacts list and add change nothing and say why; status reports; widget 12"
}

check_mode "no D-Bus" "no D-Bus session bus" -u DBUS_SESSION_BUS_ADDRESS -u DISPLAY
check_mode "stale bus address" "no D-Bus session bus" DBUS_SESSION_BUS_ADDRESS="unix:path=$WORK/no-such-bus"

# A bus of our own with nobody providing org.freedesktop.secrets.
cat > "$WORK/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=$WORK</listen>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF
dbus-daemon --config-file="$WORK/bus.conf" --nofork --print-address=1 > "$WORK/bus.addr" 2>/dev/null </dev/null &
BUS_PID=$!
for _ in $(seq 1 600); do [ -s "$WORK/bus.addr" ] && break; sleep 0.05; done
check_mode "a bus without a Secret Service" "no provider" DBUS_SESSION_BUS_ADDRESS="$(head -1 "$WORK/bus.addr")"
kill $BUS_PID 2>/dev/null || true

# A peer that accepts connections and never says a word: every call is bounded by the budget.
python3 - "$WORK/silent.sock" 300 > /dev/null 2>&1 <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(64); s.settimeout(0.2)
held, end = [], time.time() + float(sys.argv[2])
while time.time() < end:
    try:
        held.append(s.accept()[0])
    except socket.timeout:
        pass
PY
SILENT_PID=$!
for _ in $(seq 1 100); do [ -S "$WORK/silent.sock" ] && break; sleep 0.05; done
check_mode "a bus that never answers" "timeout" DBUS_SESSION_BUS_ADDRESS="unix:path=$WORK/silent.sock" APPGROUPSIM_KEYCHAIN_TIMEOUT=2
kill $SILENT_PID 2>/dev/null || true

# The keyring locked under the running session, as the device locks (it cannot be unlocked again here,
# so this comes last).
expect_status 0 "$BIN/msdk-sim" keychain lock
check_mode "a locked keyring" "locked"

# --sdk-recovery: the SDK's own recovery deletes what it cannot read, and then completely.
expect_status 1 app --sdk-recovery logout
contains "$ERR" "recovery deleted the account(s) it could not read or decrypt"
[ -z "$(cd "$DEV" && find . -name UserAccount.plist -o -name store.sqlite)" ] || fail "--sdk-recovery left files behind"
python3 -c 'import plistlib,sys; sys.exit(0 if plistlib.load(open(sys.argv[1], "rb")).get("LastUserIdentity") is None else 1)' "$SUITE" \
  || fail "--sdk-recovery left LastUserIdentity pointing at a deleted account"
ok "--sdk-recovery: the SDK's deletion, complete (accounts, stores and the current user)"
