#!/usr/bin/env bash
# Examples that are run, not pasted (issue 29): every block of README.md and docs/ marked
# <!-- example: NAME --> must be what docs/examples/NAME.sh prints now (masked as docs/README.md says).
# And the check must catch a change: one block is altered in a copy of the checkout's pages, and the
# check on that copy must fail naming it.
# scripts/test: scratch (it builds consumer packages in the shared scratch path, AppGroupSim's own .build, and makes
# SwiftPM's symbol graphs there first, in its sdk-api-coverage example: scripts/test runs it before the other consumer
# packages' scripts, while .build still holds the build with every trait on, so that the graphs relink nothing)
source "$(dirname "$0")/../lib/integration.sh"
expect_status 0 "$ROOT/scripts/docs-examples" --check
contains "$OUT" "every block is what its example prints now"
ok "$(printf '%s\n' "$OUT" | tail -1)"
expect_status 0 "$ROOT/scripts/docs-examples" --list
[ "$(printf '%s\n' "$OUT" | grep -c .)" -ge 8 ] || fail "fewer examples than the pages had: $OUT"

# The check catches a drift: a copy of the repository's pages and examples with one output changed by hand.
COPY="$WORK/copy"
mkdir -p "$COPY/scripts/lib" "$COPY/docs"
cp "$ROOT/README.md" "$COPY/"
cp -r "$ROOT/docs/." "$COPY/docs/"
cp "$ROOT/scripts/docs-examples" "$COPY/scripts/"
cp "$ROOT/scripts/lib/examples.sh" "$COPY/scripts/lib/"
cp "$ROOT/scripts/with-keyring" "$COPY/scripts/"
ln -s "$ROOT/Fixtures" "$COPY/Fixtures"
sed -i 's/^sync down: DONE, 1000 record(s) fetched (syncDownContacts)$/sync down: DONE, 999 record(s) fetched (syncDownContacts)/' "$COPY/README.md"
grep -q "999 record(s)" "$COPY/README.md" || fail "the hand-made drift was not put in"
expect_status 1 env BIN="$BIN" "$COPY/scripts/docs-examples" --check sample-story
contains "$OUT" "DRIFT README.md:"
contains "$OUT" "-sync down: DONE, 999 record(s) fetched (syncDownContacts)"
contains "$OUT" "+sync down: DONE, 1000 record(s) fetched (syncDownContacts)"
ok "a block changed by hand is caught: DRIFT README.md, the changed line shown"

# Benchmark figures carry their date and commit: every block, and a block without its line is caught.
expect_status 0 "$ROOT/scripts/bench-docs" --check
contains "$OUT" "every benchmark block carries its date and commit"
ok "$(printf '%s\n' "$OUT" | tail -1)"
mkdir -p "$COPY/Benchmarks"
cp "$ROOT/scripts/bench-docs" "$COPY/scripts/"
sed -i '/^<!-- bench: sync -->$/{n;n;d}' "$COPY/docs/benchmarks.md"
expect_status 1 "$COPY/scripts/bench-docs" --check
contains "$OUT" "the sync block does not start with the line Benchmarks/run prints"
ok "a benchmark block without its date and commit is caught"
