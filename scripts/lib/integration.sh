# Helpers for scripts/integration/*.sh. Source it. Expects $BIN (swift build --show-bin-path).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${BIN:-$(cd "$ROOT" && swift build --show-bin-path)}
APP="$ROOT/Fixtures/MobileSyncExplorer/MobileSyncExplorer.app"
WIDGET="$APP/PlugIns/RecentContacts.appex"
GROUP=group.com.salesforce.mobilesdk.MobileSyncExplorer
WORK=$(mktemp -d "${TMPDIR:-/tmp}/appgroupsim-it.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "  ok: $*"; }

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
