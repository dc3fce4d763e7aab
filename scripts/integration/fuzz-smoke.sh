#!/usr/bin/env bash
# A short run of every fuzz target (scripts/fuzz): each parser of outside input starts from its
# committed seed corpus, the found crashes among them, and must not crash in 15 s of new inputs.
# A crash's input and first error are printed (the work folder is removed), so that a CI log is
# enough to turn it into a regression input.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/appgroupsim-fuzz.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
APPGROUPSIM_FUZZ_DIR="$WORK" "$ROOT/scripts/fuzz" --seconds 15 | sed 's/^/  /'
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  for crash in "$WORK"/*/crash-* "$WORK"/*/timeout-* "$WORK"/*/oom-*; do
    [ -e "$crash" ] || continue
    echo "  input $(basename "$(dirname "$crash")")/$(basename "$crash"):"
    xxd "$crash" | head -40 | sed 's/^/    /'
    # The whole input, so that a CI log is enough to reproduce it: base64 -d > Tests/Fuzz/<Target>/corpus/regression-...
    echo "    base64 (whole input, $(wc -c < "$crash") bytes):"
    base64 -w 100 "$crash" | sed 's/^/      /'
    grep -m2 -h -E "Fatal error|runtime failure|ERROR: AddressSanitizer" "$(dirname "$crash")"/fuzz.log 2>/dev/null | sed 's/^/    /'
  done
fi
exit "$status"
