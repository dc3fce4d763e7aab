#!/usr/bin/env bash
# The org's own tests (SOQL corpus, REST, composite, OAuth, CSV seeding) on PostgreSQL (issue 28), each on a new
# database of a throwaway PostgreSQL 15 cluster this script starts; org-postgres.sh runs the fleet's checks.
# Skipped with one visible line only when PostgreSQL cannot be installed here.
source "$(dirname "$0")/../lib/integration.sh"
source "$ROOT/scripts/lib/postgres.sh"
integration_cluster
SERVER_URL="postgres://postgres@127.0.0.1:$PG_PORT/postgres"

# The backend is the package trait PostgreSQL (off by default): build with it (nothing to do after scripts/test's build).
cd "$ROOT"
swift build --build-tests --traits PostgreSQL >"$WORK/build.log" 2>&1 || fail "the build with --traits PostgreSQL failed: $(grep -m3 error: "$WORK/build.log")"
BIN=$(swift build --show-bin-path)

# The same tests as on SQLite, on PostgreSQL: each test's org on a database of its own.
set +e
APPGROUPSIM_TEST_POSTGRES="$SERVER_URL" scripts/with-keyring swift test --skip-build --traits PostgreSQL --filter 'OrgSimulatorTests' >"$WORK/tests.log" 2>&1
status=$?
set -e
[ "$status" -eq 0 ] || fail "the org's tests on PostgreSQL failed (exit $status): $(grep -E 'error:|failed|Fatal|crashed' "$WORK/tests.log" | head -20) $(tail -5 "$WORK/tests.log")"
executed=$(grep -Eo "Executed [0-9]+ tests?, with 0 failures" "$WORK/tests.log" | tail -1)
[ -n "$executed" ] || fail "no test summary in the run on PostgreSQL: $(tail -5 "$WORK/tests.log")"
databases=$(pg_sql "SELECT count(*) FROM pg_database WHERE datname LIKE 't\_%'" | tr -d ' ')
[ "$databases" -ge 20 ] || fail "only $databases test databases were made: the tests did not run on PostgreSQL"
ok "the org's tests on PostgreSQL: $executed, on $databases databases of their own"
