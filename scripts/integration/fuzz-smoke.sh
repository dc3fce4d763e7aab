#!/usr/bin/env bash
# A short run of every fuzz target (scripts/fuzz): each parser of outside input starts from its
# committed seed corpus, the found crashes among them, and must not crash in 15 s of new inputs.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/appgroupsim-fuzz.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
APPGROUPSIM_FUZZ_DIR="$WORK" "$ROOT/scripts/fuzz" --seconds 15 | sed 's/^/  /'
