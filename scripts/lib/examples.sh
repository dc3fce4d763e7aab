# Helpers for docs/examples/*.sh: each example is a script that shows commands and their real output, run
# by scripts/docs-examples (which masks what changes from run to run and compares with the pages).
# Source it. It gives: ROOT, WORK (a fresh folder, removed at exit), DEVICE (a device in it), the binaries
# on PATH by name, `start_org` (sf-simulator with the fixture org; sets ORG), and:
#   show 'CMD'       prints "$ CMD" as written, then runs it (with eval, so $DEVICE, $ORG… expand) and
#                    prints its stdout and stderr; an exit status other than 0 is printed as "(exit N)".
#   quiet 'CMD'      runs it without showing it (setup a reader need not see); fails the example on error.
set -uo pipefail
if [ -z "${APPGROUPSIM_IN_KEYRING:-}" ]; then
  APPGROUPSIM_IN_KEYRING=1 exec "$(dirname "${BASH_SOURCE[0]}")/../with-keyring" bash "$0" "$@"
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${BIN:-$(cd "$ROOT" && swift build --show-bin-path)}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/appgroupsim-example.XXXXXX")
trap 'kill ${ORG_PID:-} 2>/dev/null; rm -rf "$WORK"' EXIT
export PATH="$BIN:$PATH"
export APPGROUPSIM_DEVICE="$WORK/device"
DEVICE="$APPGROUPSIM_DEVICE"
cd "$ROOT"

show() {
  printf '$ %s\n' "$1"
  local status=0
  eval "$1" 2>&1 || status=$?
  [ "$status" -eq 0 ] || printf '(exit %d)\n' "$status"
}

quiet() {
  local out
  out=$(eval "$1" 2>&1) || { echo "example setup failed: $1: $out" >&2; exit 1; }
}

start_org() {
  : >"$WORK/org.out"
  sf-simulator --port 0 --data "$ROOT/Fixtures/org" "$@" > "$WORK/org.out" 2> "$WORK/org.err" &
  ORG_PID=$!
  for _ in $(seq 1 600); do [ "$(wc -l < "$WORK/org.out")" -ge 2 ] && break; sleep 0.05; done
  ORG=$(head -1 "$WORK/org.out" | awk '{print $3}')
  [ -n "$ORG" ] || { echo "sf-simulator did not start: $(cat "$WORK/org.err")" >&2; exit 1; }
  APPGROUPSIM_ADMIN_TOKEN=$(sed -n 2p "$WORK/org.out" | sed -n 's/^admin token: //p')
  export APPGROUPSIM_ADMIN_TOKEN
}

# help_tree BINARY [SUBCOMMAND…]: shows `BINARY … --help`, then the same for each of its subcommands, depth
# first. HELP_PREFIX (e.g. "--bundle $APP") goes before the subcommands, for a binary whose root options are
# required (main-app): without them its subcommands' --help prints the root's.
help_tree() {
  local bin=$1; shift
  local line="$bin${HELP_PREFIX:+ $HELP_PREFIX}${*:+ $*} --help"
  [ $# -gt 0 ] || line="$bin --help"
  show "$line"
  local sub subs
  subs=$(eval "$line" 2>&1 | sed -n '/^SUBCOMMANDS:/,/^$/p' | grep -E '^  [a-z][a-z0-9-]+' | awk '{print $1}' | grep -v '^help$')
  for sub in $subs; do
    [ $# -lt 3 ] && [ "$sub" != "${*: -1}" ] || continue
    help_tree "$bin" "$@" "$sub"
  done
}
