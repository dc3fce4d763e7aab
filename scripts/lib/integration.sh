# Helpers for scripts/integration/*.sh. Source it. Expects $BIN (swift build --show-bin-path).
# A script that needs the Secret Service sources it as `APPGROUPSIM_NEEDS_KEYRING=1 source …`: the script
# then runs again, whole, inside its own private keyring (scripts/with-keyring); APPGROUPSIM_TRACE=1 traces it.
set -euo pipefail
if [ "${APPGROUPSIM_NEEDS_KEYRING:-}" = 1 ] && [ -z "${APPGROUPSIM_IN_KEYRING:-}" ]; then
  APPGROUPSIM_IN_KEYRING=1 exec "$(dirname "${BASH_SOURCE[0]}")/../with-keyring" bash ${APPGROUPSIM_TRACE:+-x} "$0" "$@"
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${BIN:-$(cd "$ROOT" && swift build --show-bin-path)}
APP="$ROOT/Fixtures/MobileSyncExplorer/MobileSyncExplorer.app"
WIDGET="$APP/PlugIns/RecentContacts.appex"
GROUP=group.com.salesforce.mobilesdk.MobileSyncExplorer
WORK=$(mktemp -d "${TMPDIR:-/tmp}/appgroupsim-it.XXXXXX")

# end_children: every process this script started (its descendants, found through /proc) ends with it, on
# success, failure or a signal; a script that fails halfway leaves no org, app or shell behind.
descendants() {
  local parent=$1 child
  for child in $(ps -o pid= --ppid "$parent" 2>/dev/null); do
    descendants "$child"
    echo "$child"
  done
}
end_children() {
  local pids
  pids=$(descendants $$ | grep -vx "$BASHPID" || true)
  [ -n "$pids" ] || return 0
  kill -TERM $pids 2>/dev/null || true
  for _ in $(seq 1 20); do
    kill -0 $pids 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL $pids 2>/dev/null || true
}
trap 'end_children; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "  ok: $*"; }
# scratch_done: a "# scripts/test: scratch" script is done with the shared scratch path (AppGroupSim's .build)
# and runs only what it copied out of it from here on; scripts/test may start the next such script beside it.
scratch_done() { if [ -n "${APPGROUPSIM_SCRATCH_TOKEN:-}" ]; then rm -f "$APPGROUPSIM_SCRATCH_TOKEN"; fi; }

# expect_status N CMD...: runs CMD, keeps stdout in $OUT and stderr in $ERR, checks the exit status.
expect_status() {
  local want=$1; shift
  set +e
  OUT=$("$@" 2>"$WORK/stderr")
  local got=$?
  set -e
  ERR=$(cat "$WORK/stderr")
  [ "$got" -eq "$want" ] || fail "$* exited $got, expected $want; stdout: $OUT; stderr: $ERR"
}

contains() { case "$1" in *"$2"*) return 0 ;; *) fail "expected '$2' in: $1" ;; esac; }

json_field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

# start_org [ARGS...]: a real sf-simulator on a free port with the fixture org (ARGS go to it, e.g.
# --connected-app); sets ORG (its URL) and ORG_PID, stops it at exit.
start_org() {
  : >"$WORK/org.out"  # before the loop below reads it: the job may not have opened it yet
  "$BIN/sf-simulator" --port 0 --data "$ROOT/Fixtures/org" "$@" > "$WORK/org.out" 2> "$WORK/org.err" &
  ORG_PID=$!
  trap 'kill $ORG_PID 2>/dev/null || true; end_children; rm -rf "$WORK"' EXIT
  for _ in $(seq 1 600); do [ "$(wc -l < "$WORK/org.out")" -ge 2 ] && break; sleep 0.05; done
  ORG=$(head -1 "$WORK/org.out" | awk '{print $3}')
  [ -n "$ORG" ] || fail "sf-simulator did not start: $(cat "$WORK/org.err")"
  # Its admin token (second line): for /__admin and /__apns, and for the apps' APNs registration.
  APPGROUPSIM_ADMIN_TOKEN=$(sed -n 2p "$WORK/org.out" | sed -n 's/^admin token: //p')
  [ -n "$APPGROUPSIM_ADMIN_TOKEN" ] || fail "sf-simulator printed no admin token: $(cat "$WORK/org.out")"
  export APPGROUPSIM_ADMIN_TOKEN
}

# admin_curl ARGS...: curl with sf-simulator's admin token (the routes under /__admin and /__apns).
admin_curl() { curl -H "X-AppGroupSim-Admin-Token: $APPGROUPSIM_ADMIN_TOKEN" "$@"; }

# sdk_items: secret-tool's listing of every AppGroupSim keychain item (values on `secret = ` lines).
# A failing secret-tool fails the script: a check over an empty listing proves nothing.
sdk_items() {
  local out
  # The account and push keys are binary: their NUL bytes are dropped here (bash would warn and drop them
  # anyway); the helpers never compare those values as text.
  out=$(secret-tool search --all creator com.appgroupsim.sdk 2>"$WORK/secret-tool.err" | tr -d '\0') \
    || fail "secret-tool search failed: $(cat "$WORK/secret-tool.err")"
  printf '%s\n' "$out"
}

# live_token_items: how many OAuth token items hold a value (the account and push keys, which the SDK
# keeps across logouts, are not counted).
live_token_items() {
  sdk_items | awk '/^\[/{if(v&&t)n++; v=0; t=0} /^secret = ./{v=1} /^label = AppGroupSim com.salesforce.mobilesdk.oauth[.]/{t=1} END{if(v&&t)n++; print n+0}'
}

# field JSON EXPR: evaluates a Python expression over the parsed JSON `d`.
field() { printf %s "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {"d": d}))' "$2"; }
