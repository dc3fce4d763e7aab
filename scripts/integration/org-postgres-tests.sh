#!/usr/bin/env bash
# The org's own tests (SOQL corpus, REST, composite, OAuth, CSV seeding) on PostgreSQL (issue 28), each on a new
# database of a throwaway PostgreSQL 15 cluster this script starts; org-postgres.sh runs the fleet's checks.
# Skipped with one visible line only when PostgreSQL cannot be installed here.
source "$(dirname "$0")/../lib/integration.sh"
source "$ROOT/scripts/lib/postgres.sh"
integration_cluster
SERVER_URL="postgres://postgres@127.0.0.1:$PG_PORT/postgres"

# The backend is the package trait PostgreSQL (off by default): build with it. Under scripts/test, which built the
# package and its tests with it and says so (APPGROUPSIM_BUILT_TRAITS), nothing is built again: the consumer packages'
# scripts build in the same .build without the trait, which recompiles the modules but never links $BIN's binaries or
# the test bundle, so a build here would only recompile them back.
cd "$ROOT"
if [ "${APPGROUPSIM_BUILT_TRAITS:-}" != PostgreSQL ]; then
  swift build --build-tests --traits PostgreSQL >"$WORK/build.log" 2>&1 || fail "the build with --traits PostgreSQL failed: $(grep -m3 error: "$WORK/build.log")"
  BIN=$(swift build --show-bin-path)
fi

# The same tests as on SQLite, on PostgreSQL: each test's org on a database of its own.
set +e
# The test bundle itself, not swift test --skip-build: that opens .build's build database and holds SwiftPM's lock on
# .build for the whole run (a minute or two) while the scratch scripts build there (with --ignore-lock, "database is
# locked", seen in CI). One class at a time on each core, each in a keyring of its own.
APPGROUPSIM_TEST_POSTGRES="$SERVER_URL" python3 "$ROOT/scripts/lib/run-tests.py" --module OrgSimulatorTests "$BIN/AppGroupSimPackageTests.xctest" >"$WORK/tests.log" 2>&1
status=$?
set -e
[ "$status" -eq 0 ] || fail "the org's tests on PostgreSQL failed (exit $status): $(grep -E 'error:|failed|FAILED|Fatal|crashed' "$WORK/tests.log" | head -20) $(tail -5 "$WORK/tests.log")"
executed=$(grep -Eo "^tests: [0-9]+ XCTest tests of OrgSimulatorTests in [0-9]+ classes with 0 failure" "$WORK/tests.log" | tail -1)
[ -n "$executed" ] || fail "no test summary in the run on PostgreSQL: $(tail -5 "$WORK/tests.log")"
databases=$(pg_sql "SELECT count(*) FROM pg_database WHERE datname LIKE 't\_%'" | tr -d ' ')
[ "$databases" -ge 20 ] || fail "only $databases test databases were made: the tests did not run on PostgreSQL"
# A test's new database starts as a copy of a seeding kept on the server (SeedingCopies): one seeding a definition.
kept=$(pg_sql "SELECT count(*) FROM pg_database WHERE datname LIKE 's\_%'" | tr -d ' ')
[ "$kept" -ge 1 ] && [ "$kept" -lt "$databases" ] || fail "$kept seedings kept for $databases test databases: the tests' databases were not copied from kept seedings"
ok "the org's tests on PostgreSQL: $executed, on $databases databases of their own, copied from $kept seedings kept on the server"
