#!/usr/bin/env bash
# The newcomer's path (issue 29): the block at the top of docs/README.md, run as written, in a plain
# shell (no keyring started for it: the path must start its own where it needs one) from the checkout's
# folder. Every file it names must be in git, so that it works on a fresh clone, which is what CI runs on.
# scripts/test: scratch (it builds the checkout in .build without the trait, as scripts/demo does, and builds an imported
# package there; the last of them, so that it compiles nothing the consumer packages did not; the scripts beside it run
# scripts/test's build from their own links, so its new binaries reach none of them)
source "$(dirname "$0")/../lib/integration.sh"
PAGE="$ROOT/docs/README.md"
awk '/^<!-- newcomer-path -->$/ { mark = 1; next } mark && /^```/ { if (inside) exit; inside = 1; next } inside { print }' \
  "$PAGE" > "$WORK/path.sh"
[ "$(grep -c . "$WORK/path.sh")" -ge 5 ] || fail "docs/README.md has no newcomer-path block of commands: $(cat "$WORK/path.sh")"
grep -q '^scripts/demo' "$WORK/path.sh" || fail "the newcomer's path does not start with scripts/demo"

# Every checkout path it names is tracked (a gitignored fixture would work here and not on a fresh clone).
cd "$ROOT"
for path in $(grep -oE '(Fixtures|scripts|docs)/[A-Za-z0-9_./-]+' "$WORK/path.sh" | sort -u); do
  [ -n "$(git ls-files -- "$path" | head -1)" ] || fail "the newcomer's path names $path, which is not in git"
done
ok "every file the path names is in git: $(grep -oE '(Fixtures|scripts|docs)/[A-Za-z0-9_./-]+' "$WORK/path.sh" | sort -u | tr '\n' ' ')"

# Run it as written (each line echoed), with a clean environment: only PATH (the system's and swift's), HOME (SwiftPM's
# configuration), TMPDIR and LANG. Swift's own folder, not scripts/test's `swift` in front of it (scripts/lib/swiftpm).
SWIFT_DIR=$(dirname "$(PATH="${APPGROUPSIM_SWIFTPM_PATH:-$PATH}" command -v swift)")
set +e
env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$SWIFT_DIR \
  HOME="$HOME" TMPDIR="$WORK" LANG=C.UTF-8 bash -euo pipefail -x "$WORK/path.sh" > "$WORK/path.log" 2>&1
status=$?
set -e
[ "$status" -eq 0 ] || fail "the newcomer's path failed (exit $status); its last lines: $(tail -25 "$WORK/path.log")"
LOG=$(cat "$WORK/path.log")
contains "$LOG" "widget"                                   # 1. the demo's story reached the widget
contains "$LOG" "no finding"                               # 2. doctor on Recents
contains "$LOG" "Test Suite 'All tests' passed"            # 3. the imported package's SetupTests
contains "$LOG" "stale-login-flag"                         # 4. the scenario list and the scenario
ok "the newcomer's path ran as written: demo, doctor, import --package and its setup tests, a scenario"
