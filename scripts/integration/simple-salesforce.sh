#!/usr/bin/env bash
# Real outside clients against sf-simulator, behind TLS (socat + an openssl certificate for
# 127.0.0.1): requests-oauthlib logs in with PKCE, simple-salesforce makes every call a new user
# tries first (describe, sobjects, CRUD on several objects, external ids, SOQL with relationships,
# SOSL, limits, updated/deleted, errors, cursors). Both come from PyPI into a venv under .build/.
set -euo pipefail
source "$(dirname "$0")/../lib/integration.sh"
source "$ROOT/scripts/lib/common.sh"
PY=$(ensure_python_venv)

start_org
ORG_PORT=${ORG##*:}

# A CA and a server certificate for 127.0.0.1, made fresh for this run.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=AppGroupSim test CA" \
  -keyout "$WORK/ca.key" -out "$WORK/ca.pem" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$WORK/server.key" -out "$WORK/server.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' > "$WORK/san.ext"
openssl x509 -req -in "$WORK/server.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" -CAcreateserial -days 1 \
  -extfile "$WORK/san.ext" -out "$WORK/server.crt" 2>/dev/null
cat "$WORK/server.crt" "$WORK/server.key" > "$WORK/server.pem"

# tls_front HOST:PORT LOG: a TLS front (socat, with the certificate above) on a free port of 127.0.0.1, in
# TLS_PORT, once it answers.
tls_front() {
  TLS_PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  socat "OPENSSL-LISTEN:$TLS_PORT,bind=127.0.0.1,reuseaddr,fork,cert=$WORK/server.pem,verify=0" "TCP:$1" 2>"$2" &
  for _ in $(seq 1 100); do
    curl -s --cacert "$WORK/ca.pem" "https://127.0.0.1:$TLS_PORT/services/data" >/dev/null 2>&1 && break
    sleep 0.05
  done
  curl -sf --cacert "$WORK/ca.pem" "https://127.0.0.1:$TLS_PORT/services/data" >/dev/null || fail "TLS front to $1 did not start: $(cat "$2")"
}
tls_front "127.0.0.1:$ORG_PORT" "$WORK/socat.err"
ok "sf-simulator behind TLS at https://127.0.0.1:$TLS_PORT (certificate checked by the clients)"

REQUESTS_CA_BUNDLE="$WORK/ca.pem" "$PY" "$ROOT/scripts/integration/simple_salesforce_client.py" "https://127.0.0.1:$TLS_PORT" "$WORK/ca.pem" \
  || fail "the PyPI clients failed against sf-simulator"

# The same clients against a fleet: three sf-simulator instances on one PostgreSQL database behind HAProxy
# (scripts/fleet), behind the same kind of TLS front, so that a real outside client sees no difference between
# one instance on SQLite and three on PostgreSQL (issue 39). Skipped with one line only when PostgreSQL cannot be
# installed here.
source "$ROOT/scripts/lib/postgres.sh"
if ! ensure_postgres >"$WORK/pg-install.log" 2>&1; then
  echo "SKIP: PostgreSQL 15 cannot be installed on this machine ($(tail -1 "$WORK/pg-install.log")); the clients did not run against a fleet"
  exit 0
fi
"$ROOT/scripts/fleet" --instances 3 --info "$WORK/fleet.env" >"$WORK/fleet.out" 2>&1 &
FLEET_PID=$!
trap 'kill $ORG_PID 2>/dev/null || true; kill -TERM $FLEET_PID 2>/dev/null || true; wait $FLEET_PID 2>/dev/null || true; end_children; rm -rf "$WORK"' EXIT
for _ in $(seq 1 600); do [ -f "$WORK/fleet.env" ] && break; kill -0 "$FLEET_PID" 2>/dev/null || fail "scripts/fleet did not start: $(tail -5 "$WORK/fleet.out")"; sleep 0.2; done
[ -f "$WORK/fleet.env" ] || fail "scripts/fleet did not start within 120 s: $(tail -5 "$WORK/fleet.out")"
source "$WORK/fleet.env"
tls_front "${FRONT#http://}" "$WORK/socat-fleet.err"
FLEET_TLS_PORT=$TLS_PORT
REQUESTS_CA_BUNDLE="$WORK/ca.pem" "$PY" "$ROOT/scripts/integration/simple_salesforce_client.py" "https://127.0.0.1:$FLEET_TLS_PORT" "$WORK/ca.pem" \
  || fail "the PyPI clients failed against the fleet (three instances on PostgreSQL behind HAProxy)"
ok "the same clients against three instances on PostgreSQL behind HAProxy and TLS: every call answered as on one instance on SQLite"
