#!/usr/bin/env bash
# The org on PostgreSQL (issue 28), against a throwaway PostgreSQL 15 cluster this script starts:
# 1. twenty sf-simulator instances started at once on one database, then two of them: every cross-instance rule
#    (fleet_checks.py) and record lock rule (record_locks.py);
# 2. bad input: an unreachable database, bad URLs, a schema of another version, the database lost mid-run;
# 3. faults of the database and of an instance, each answer within its bound; 4. scripts/fleet as a user starts it.
# The org's own tests on PostgreSQL are org-postgres-tests.sh.
# Skipped with one visible line only when PostgreSQL cannot be installed here.
# scripts/test: alone (its checks bound how long a lock, a timeout and an answer take)
source "$(dirname "$0")/../lib/integration.sh"
source "$ROOT/scripts/lib/postgres.sh"
integration_cluster

# The backend is the package trait PostgreSQL (off by default): build with it. Under scripts/test, which built the
# package and its tests with it and says so (APPGROUPSIM_BUILT_TRAITS), nothing is built again: the consumer packages'
# scripts build in the same .build without the trait, which recompiles the modules but never links $BIN's binaries or
# the test bundle, so a build here would only recompile them back.
cd "$ROOT"
if [ "${APPGROUPSIM_BUILT_TRAITS:-}" != PostgreSQL ]; then
  swift build --build-tests --traits PostgreSQL >"$WORK/build.log" 2>&1 || fail "the build with --traits PostgreSQL failed: $(grep -m3 error: "$WORK/build.log")"
  BIN=$(swift build --show-bin-path)
fi

# 1. Twenty instances started at once on one empty database.
psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -q -c "CREATE DATABASE fleet" postgres
FLEET="postgres://postgres@127.0.0.1:$PG_PORT/fleet"
# The second instance talks to PostgreSQL over its Unix-domain socket (libpq's form: the socket's directory,
# percent-encoded, as the host), the others over TCP: the checks below then hold across the two.
FLEET_SOCKET="postgres://postgres@$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$WORK/pg"):$PG_PORT/fleet"
INSTANCES=$(seq 1 20)
for i in $INSTANCES; do
  state=$FLEET; [ "$i" = 2 ] && state=$FLEET_SOCKET
  : >"$WORK/i$i.out"
  "$BIN/sf-simulator" --port 0 --data "$ROOT/Fixtures/org" --state "$state" --pool-size 4 >"$WORK/i$i.out" 2>"$WORK/i$i.err" &
  eval "PID$i=$!"
done
for i in $INSTANCES; do
  for _ in $(seq 1 1200); do [ "$(wc -l <"$WORK/i$i.out")" -ge 2 ] && break; sleep 0.05; done
  [ "$(wc -l <"$WORK/i$i.out")" -ge 2 ] || fail "instance $i did not start: $(cat "$WORK/i$i.err")"
done
A=$(head -1 "$WORK/i1.out" | awk '{print $3}')
ADMIN_A=$(sed -n 2p "$WORK/i1.out" | awk '{print $3}')
B=$(head -1 "$WORK/i2.out" | awk '{print $3}')
seeded=$(psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d fleet -X -A -t -c "SELECT count(*) || ' ' || count(DISTINCT \"Email\") FROM \"obj_Contact\"")
[ "$seeded" = "1050 1050" ] || fail "twenty instances seeding at once made $seeded contacts (rows, distinct emails); expected 1050 once"
ok "twenty instances started at once on one empty database: the schema made and the org seeded once (1050 contacts)"
# B's connections are Unix-domain ones, as PostgreSQL itself sees them (client_addr is NULL for a socket's).
socket_backends=$(psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d fleet -X -A -t -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'sf-simulator' AND client_addr IS NULL")
[ "${socket_backends:-0}" -ge 1 ] || fail "no instance is connected over the Unix-domain socket ($FLEET_SOCKET)"
for i in $(seq 3 20); do eval "kill \$PID$i"; eval "wait \$PID$i" 2>/dev/null || true; done
python3 "$ROOT/scripts/integration/fleet_checks.py" "$A" "$B" 1000 || fail "a cross-instance rule is broken (above)"
python3 "$ROOT/scripts/integration/record_locks.py" "$A" "$ADMIN_A" "$B" "$PG_PORT" fleet || fail "a record lock rule is broken (above)"
kill "$PID1" "$PID2"; wait "$PID1" "$PID2" 2>/dev/null || true

# 2. Bad input.
closed=$(free_port)
expect_status 64 "$BIN/sf-simulator" --port 0 --data "$ROOT/Fixtures/org" --state "postgres://postgres@127.0.0.1:$closed/org"
[ "$(printf '%s\n' "$ERR" | grep -c .)" -eq 1 ] || fail "an unreachable database gave more than one line: $ERR"
contains "$ERR" "postgres://postgres@127.0.0.1:$closed/org cannot be reached"
ok "an unreachable database at start: one line, exit 64 ($ERR)"
for bad in "postgres://127.0.0.1:5432/org|names no user" "postgres://u@127.0.0.1:99999/org|port '99999'" "postgres://u@127.0.0.1:5432|names no database" \
  "mysql://u@h/db|scheme 'mysql'" "postgres://u:s3cret-pw@h:x/db|port 'x'" "postgres://u@h/db?sslmode=require|query '?sslmode'"; do
  url=${bad%%|*} want=${bad#*|}
  expect_status 64 "$BIN/sf-simulator" --port 0 --data "$ROOT/Fixtures/org" --state "$url"
  [ "$(printf '%s\n' "$ERR" | grep -c .)" -eq 1 ] || fail "$url gave more than one line: $ERR"
  contains "$ERR" "$want"
  case "$ERR" in *s3cret-pw*) fail "the password was printed: $ERR" ;; esac
done
expect_status 64 "$BIN/sf-simulator" --port 0 --data "$ROOT/Fixtures/org" --state "postgres://postgres@%2Fnonexistent%2Fdir:$PG_PORT/fleet"
[ "$(printf '%s\n' "$ERR" | grep -c .)" -eq 1 ] || fail "a socket directory with no socket gave more than one line: $ERR"
contains "$ERR" "postgres://postgres@%2Fnonexistent%2Fdir:$PG_PORT/fleet cannot be reached: no socket there"
ok "bad URLs: one line each naming the part (user, port, database, scheme, query, a socket directory with no socket), exit 64, no password printed"

psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d fleet -X -q -c "UPDATE meta SET value = '99' WHERE key = 'schemaVersion'"
expect_status 1 "$BIN/sf-simulator" --port 0 --data "$ROOT/Fixtures/org" --state "$FLEET"
contains "$ERR" "schema version 99"
contains "$ERR" "uses version 1"
psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d fleet -X -q -c "UPDATE meta SET value = '1' WHERE key = 'schemaVersion'"
ok "a database of another schema version is refused naming both versions"

# The database lost mid-run: 503 in Salesforce's shape, then the same instance serves again once it is back.
: >"$WORK/i3.out"
"$BIN/sf-simulator" --port 0 --data "$ROOT/Fixtures/org" --state "$FLEET" >"$WORK/i3.out" 2>"$WORK/i3.err" &
PID3=$!
for _ in $(seq 1 600); do [ "$(wc -l <"$WORK/i3.out")" -ge 2 ] && break; sleep 0.05; done
C=$(head -1 "$WORK/i3.out" | awk '{print $3}')
TOKEN=$(python3 - "$C" "$ROOT" <<'PY'
import sys
sys.path.insert(0, sys.argv[2] + "/scripts/lib")
from orgclient import Session
s = Session(sys.argv[1]); s.login(); print(s.access)
PY
)
query() { curl -s -o "$WORK/answer" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$C/services/data/v66.0/query?q=SELECT+Id+FROM+Contact+LIMIT+1"; }
[ "$(query)" = 200 ] || fail "the third instance does not answer: $(cat "$WORK/answer")"
stop_postgres "$WORK/pg"
code=$(query)
[ "$code" = 503 ] || fail "with the database stopped the query answered $code: $(cat "$WORK/answer")"
contains "$(cat "$WORK/answer")" '"errorCode":"SERVER_UNAVAILABLE"'
as_postgres "$PG_BIN/pg_ctl" -D "$WORK/pg/data" -l "$WORK/pg/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $WORK/pg -c fsync=off" start >/dev/null
code=$(query)
[ "$code" = 200 ] || fail "the database is back but the instance answers $code: $(cat "$WORK/answer")"
kill -0 "$PID3" || fail "the instance exited when the database went away"
kill "$PID3"; wait "$PID3" 2>/dev/null || true
ok "the database stopped mid-run: 503 SERVER_UNAVAILABLE in Salesforce's shape; started again: 200 from the same instance"

# 3. Faults of the database and of an instance (issue 34): every request is answered within its bound, and the
# instance serves again afterwards. Each burst sends more requests than the pool has connections (4).
start_instance() {  # start_instance NAME [ARG...]: an instance on FLEET; sets its URL in the variable NAME and NAME_PID
  local name=$1; shift
  set -- "$name" "$@"
  : >"$WORK/$1.out"
  "$BIN/sf-simulator" --port 0 --data "$ROOT/Fixtures/org" --state "$FLEET" --pool-size 4 "${@:2}" >"$WORK/$1.out" 2>"$WORK/$1.err" &
  eval "$1_PID=$!"
  for _ in $(seq 1 600); do [ "$(wc -l <"$WORK/$1.out")" -ge 2 ] && break; sleep 0.05; done
  eval "$1=$(head -1 "$WORK/$1.out" | awk '{print $3}')"
}
restart_postgres() {
  # After a SIGKILL the processes go away asynchronously: the server starts again once the last one has.
  for _ in $(seq 1 100); do [ -z "$(postgres_pids)" ] && break; sleep 0.1; done
  # A killed postmaster may stay a zombie (this machine's init need not reap it): its lock files would make
  # the new one think it still runs. They are stale once every process has gone.
  rm -f "$WORK/pg/data/postmaster.pid" "$WORK/pg/.s.PGSQL.$PG_PORT.lock"
  as_postgres "$PG_BIN/pg_ctl" -D "$WORK/pg/data" -l "$WORK/pg/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $WORK/pg -c fsync=off" start >/dev/null || fail "PostgreSQL did not start again: $(tail -5 "$WORK/pg/server.log")"
}
# This cluster's processes, and no other's: each process of a cluster runs in its data directory. (A pattern on the
# command line, "postgres: ", also matched the backends of org-postgres-tests.sh's cluster: once the two scripts ran
# at the same time, (a) below killed that cluster's backends and it failed "in recovery mode".)
PG_DATA_REAL=$(readlink -f "$WORK/pg/data")
postgres_pids() {
  local pid
  for pid in $(pgrep -u postgres); do
    [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$PG_DATA_REAL" ] && printf '%s ' "$pid"
  done
  return 0
}
# check_burst FILE BOUND STATUS...: every answer within BOUND seconds, each status among STATUS...
check_burst() {
  python3 - "$@" <<'PY' || fail "$(cat "$1")"
import json, sys
answers, bound, allowed = json.load(open(sys.argv[1])), float(sys.argv[2]), set(int(s) for s in sys.argv[3:])
late = [a for a in answers if a["seconds"] > bound or a["status"] not in allowed]
assert not late, f"answers past {bound} s or not {sorted(allowed)}: {late} (all: {answers})"
print(f"{len(answers)} answers, the slowest in {max(a['seconds'] for a in answers)} s")
PY
}
start_instance C
python3 "$ROOT/scripts/integration/pg_faults.py" burst "$C" --kind read -n 1 --session "$WORK/c.session" >/dev/null

# A neighbour: another script's cluster on this machine, with a session open on it. The faults below are this
# cluster's alone; the neighbour's session must outlive them.
trap 'end_children; stop_postgres "$WORK/pg-other"; stop_postgres "$WORK/pg"; rm -rf "$WORK"' EXIT
OTHER_PORT=$(free_port)
(start_postgres "$WORK/pg-other" "$OTHER_PORT") || fail "the neighbour cluster did not start: $(tail -3 "$WORK/pg-other/server.log" 2>/dev/null)"
psql -h 127.0.0.1 -p "$OTHER_PORT" -U postgres -d org -X -q -c "SELECT pg_sleep(600)" >"$WORK/neighbour.out" 2>&1 &
NEIGHBOUR=$!
for _ in $(seq 1 100); do
  [ "$(psql -h 127.0.0.1 -p "$OTHER_PORT" -U postgres -d org -X -q -A -t -c "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(600)%'")" = 1 ] && break
  sleep 0.1
done

# (a) PostgreSQL dies (every process, SIGKILL) with 10 writes in flight, held back by the lock a psql session holds
# on the record they change.
CONTACT=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["contact"])' "$WORK/c.session")
psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d fleet -X -q -c "BEGIN; SELECT 1 FROM \"obj_Contact\" WHERE \"Id\" = '$CONTACT' FOR UPDATE; SELECT pg_sleep(60); COMMIT" >/dev/null 2>&1 &
HOLDER=$!
sleep 1
python3 "$ROOT/scripts/integration/pg_faults.py" burst "$C" --kind write -n 10 --timeout 60 --session "$WORK/c.session" >"$WORK/crash.json" &
BURST=$!
sleep 2
kill -9 $(postgres_pids) 2>/dev/null || true
wait "$BURST"; wait "$HOLDER" 2>/dev/null || true
said=$(check_burst "$WORK/crash.json" 10 503)
restart_postgres
python3 "$ROOT/scripts/integration/pg_faults.py" until "$C" --kind write --status 204 --within 20 --session "$WORK/c.session" >"$WORK/after.json"
contains "$(cat "$WORK/after.json")" '"status": 204'
kill -0 "$C_PID" || fail "the instance exited when PostgreSQL died"
ok "PostgreSQL killed with 10 writes in flight (pool of 4): $said, each 503; once it is back the same instance writes again"

# (b) PostgreSQL paused (SIGSTOP on every process): each request is refused within a few seconds; resumed, served.
kill -STOP $(postgres_pids)
python3 "$ROOT/scripts/integration/pg_faults.py" burst "$C" --kind read -n 8 --timeout 60 --session "$WORK/c.session" >"$WORK/pause-read.json"
python3 "$ROOT/scripts/integration/pg_faults.py" burst "$C" --kind write -n 8 --timeout 60 --session "$WORK/c.session" >"$WORK/pause-write.json"
kill -CONT $(postgres_pids)
said_r=$(check_burst "$WORK/pause-read.json" 6 503)
said_w=$(check_burst "$WORK/pause-write.json" 6 503)
python3 "$ROOT/scripts/integration/pg_faults.py" until "$C" --kind write --status 204 --within 20 --session "$WORK/c.session" >"$WORK/after.json"
contains "$(cat "$WORK/after.json")" '"status": 204'
ok "PostgreSQL paused: 8 reads ($said_r) and 8 writes ($said_w), each 503 within 6 s; resumed, the instance writes again"
kill -0 "$NEIGHBOUR" 2>/dev/null || fail "the neighbour cluster's session ended while this cluster was killed and paused: $(cat "$WORK/neighbour.out"; tail -3 "$WORK/pg-other/server.log")"
! grep -q "terminated by signal" "$WORK/pg-other/server.log" || fail "a process of the neighbour cluster was killed: $(grep "terminated by signal" "$WORK/pg-other/server.log")"
kill "$NEIGHBOUR"; wait "$NEIGHBOUR" 2>/dev/null || true
stop_postgres "$WORK/pg-other"
ok "the kill and the pause reached this cluster's processes only: a neighbour cluster's session lived through both"

# (c) An instance frozen (SIGSTOP) while it holds a record's lock: another instance's reads never wait for it, nor
# do its writes to other records; its writes to that record wait at most the record lock timeout (3 s here) and fail
# with UNABLE_TO_LOCK_ROW, and PostgreSQL ends the frozen transaction after 10 s idle.
start_instance D --record-lock-timeout 3
python3 "$ROOT/scripts/integration/pg_faults.py" burst "$D" --kind read -n 1 --session "$WORK/d.session" >/dev/null
CONTACT=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["contact"])' "$WORK/c.session")
psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d fleet -X -q -c "BEGIN; SELECT 1 FROM \"obj_Contact\" WHERE \"Id\" = '$CONTACT' FOR UPDATE; SELECT pg_sleep(2); COMMIT" >/dev/null 2>&1 &
HOLDER=$!
sleep 0.5
python3 "$ROOT/scripts/integration/pg_faults.py" burst "$C" --kind write -n 1 --timeout 60 --session "$WORK/c.session" >"$WORK/frozen-own.json" &
FROZEN_WRITE=$!
sleep 0.5
kill -STOP "$C_PID"
wait "$HOLDER" 2>/dev/null || true
# C's transaction now holds the record's lock, and C answers nothing.
sleep 0.5
locked=$(psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d fleet -X -A -t -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'sf-simulator' AND state = 'idle in transaction'")
[ "$locked" = 1 ] || fail "the frozen instance does not hold a transaction open ($locked): the check would prove nothing"
FROZEN_AT=$(date +%s.%N)
python3 "$ROOT/scripts/integration/pg_faults.py" burst "$D" --kind read -n 5 --timeout 60 --session "$WORK/d.session" >"$WORK/frozen-read.json"
python3 "$ROOT/scripts/integration/pg_faults.py" burst "$D" --kind write --other -n 5 --timeout 60 --session "$WORK/d.session" >"$WORK/frozen-other.json"
python3 "$ROOT/scripts/integration/pg_faults.py" burst "$D" --kind write -n 5 --timeout 60 --session "$WORK/d.session" >"$WORK/frozen-write.json"
said_r=$(check_burst "$WORK/frozen-read.json" 1.5 200)
said_o=$(check_burst "$WORK/frozen-other.json" 1.5 204)
# 5 writes on a pool of 4: each waits at most the record lock timeout (3 s), the fifth first a connection (3 s more).
said_w=$(check_burst "$WORK/frozen-write.json" 7 400)
python3 "$ROOT/scripts/integration/pg_faults.py" until "$D" --kind write --status 204 --within 20 --session "$WORK/d.session" >"$WORK/frozen-after.json"
contains "$(cat "$WORK/frozen-after.json")" '"status": 204'
freed=$(python3 -c "import json,sys,time; print(round(time.time() - float(sys.argv[1]), 1))" "$FROZEN_AT")
RESUMED_AT=$(date +%s.%N)
kill -CONT "$C_PID"
wait "$FROZEN_WRITE" 2>/dev/null || true
# The write C was making when it froze: PostgreSQL ended its transaction and closed the connection meanwhile, so once
# resumed C answers it 503 at its next look at the connection (every 2 s), not after the 30 s statement timeout.
own=$(python3 -c 'import json,sys,time; r=json.load(open(sys.argv[1]))[0]; print(r["status"], round(time.time() - float(sys.argv[2]), 1))' "$WORK/frozen-own.json" "$RESUMED_AT")
[ "${own% *}" = 503 ] || fail "the frozen instance's own write in flight was answered ${own% *}, not 503 (its transaction was ended while it was frozen)"
python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < 6 else 1)' "${own#* }" || fail "the frozen instance answered its write in flight ${own#* } s after it was resumed (a closed connection waited for as a slow statement?)"
python3 "$ROOT/scripts/integration/pg_faults.py" until "$C" --kind write --status 204 --within 20 --session "$WORK/c.session" >/dev/null
ok "an instance frozen holding a record's lock: the other's reads $said_r (200), its writes to other records $said_o (204), to that record $said_w (400 UNABLE_TO_LOCK_ROW after the 3 s timeout), and it wrote the record again ${freed} s after the freeze; resumed, the frozen one answered its own write in flight 503 within ${own#* } s (its transaction ended by the server meanwhile) and serves again"
kill "$C_PID" "$D_PID"; wait "$C_PID" "$D_PID" 2>/dev/null || true

# (d) An instance with another org definition on the shared database is refused, names the difference, changes nothing.
cp -r "$ROOT/Fixtures/org" "$WORK/other-org"
python3 - "$WORK/other-org/orgs.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["orgs"][0]["users"].append({"id": "0055g00000MalloAAA", "username": "mallory@acme.test", "password": "mallory-pass", "displayName": "Mallory M", "email": "m@acme.test"})
json.dump(d, open(sys.argv[1], "w"))
PY
python3 - "$WORK/other-org/objects.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
contact = next(o for o in d["objects"] if o["name"] == "Contact")
contact["fields"].append({"name": "Nickname__c", "type": "string", "length": 40})
json.dump(d, open(sys.argv[1], "w"))
PY
schema() { psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d fleet -X -A -t -c "SELECT string_agg(table_name || '.' || column_name, ',' ORDER BY table_name, column_name) FROM information_schema.columns WHERE table_schema = 'public'; SELECT value FROM meta WHERE key = 'definition'" | md5sum; }
BEFORE=$(schema)
expect_status 64 "$BIN/sf-simulator" --port 0 --data "$WORK/other-org" --state "$FLEET"
[ "$(printf '%s\n' "$ERR" | grep -c .)" -eq 1 ] || fail "the mixed definition gave more than one line: $ERR"
contains "$ERR" "user 00D5g00000AcmeeEAA 0055g00000MalloAAA (mallory@acme.test)"
contains "$ERR" "object Contact differ"
contains "$ERR" "nothing was changed"
case "$ERR" in *mallory-pass*) fail "a password was printed: $ERR" ;; esac
[ "$BEFORE" = "$(schema)" ] || fail "the refused instance changed the shared database's tables or definition"
ok "an instance with another org definition on the shared database: exit 64, one line naming what differs (a user, an object), nothing changed"

# 4. scripts/fleet as a user starts it: its own cluster, two instances behind HAProxy; a short bounded load
# through the front with one instance killed halfway loses and duplicates nothing; SIGTERM removes the cluster.
"$ROOT/scripts/fleet" --instances 2 --info "$WORK/fleet.env" >"$WORK/fleet.out" 2>&1 &
FLEET_PID=$!
for _ in $(seq 1 240); do [ -f "$WORK/fleet.env" ] && break; kill -0 "$FLEET_PID" 2>/dev/null || break; sleep 0.5; done
[ -f "$WORK/fleet.env" ] || fail "scripts/fleet did not come up: $(cat "$WORK/fleet.out")"
source "$WORK/fleet.env"
contains "$(cat "$WORK/fleet.out")" "fleet: $FRONT (HAProxy, round robin over 2 instance(s))"
set -- $INSTANCE_PIDS
python3 "$ROOT/scripts/fleet-load" "$FRONT" --devices 10 --seconds 8 --kill-pid "$2" --kill-at 4 \
  --psql "psql -h 127.0.0.1 -p $PG_PORT -U postgres -d org" --label "fleet of 2, one killed" --json "$WORK/load.json" >"$WORK/load.out" 2>&1 \
  || fail "the load through the fleet's front lost or duplicated writes: $(cat "$WORK/load.out")"
python3 - "$WORK/load.json" <<'PY' || fail "the load through the fleet: $(cat "$WORK/load.out")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["instance_killed_at_s"] is not None, r
assert r["writes_acknowledged"] > 0 and r["lost_writes"] == 0 and r["duplicates"] == 0 and r["lost_updates"] == 0, r
assert r["syncs"]["v66.0"] > 0 and r["short_syncs"] == 0, r
PY
ok "scripts/fleet: 2 instances behind HAProxy; 10 devices for 8 s with one instance killed at 4 s: $(sed 's/^[^:]*: //' "$WORK/load.out")"
kill -TERM "$FLEET_PID"; wait "$FLEET_PID" 2>/dev/null || true
contains "$(cat "$WORK/fleet.out")" "fleet: stopped; the cluster is removed"
[ ! -e "$FLEET_DIR" ] || fail "scripts/fleet left $FLEET_DIR after SIGTERM"
ok "SIGTERM stopped the fleet and removed its cluster"
