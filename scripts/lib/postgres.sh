# A throwaway PostgreSQL 15 cluster on loopback, for the org's PostgreSQL backend (issue 28): used by
# scripts/fleet and the integration scripts. Source it; it defines functions only.
#
#   ensure_postgres                 installs Debian's postgresql-15 when it is missing (as root); 1 when it cannot
#   start_postgres DIR [PORT]       initdb into DIR (run as the postgres user when root), start it on 127.0.0.1
#                                   (a free port unless given; no Unix socket outside DIR) and create the database
#                                   "org"; sets PG_URL=postgres://postgres@127.0.0.1:PORT/org, PG_PORT and PG_DIR
#   stop_postgres [DIR]             stops it (fast shutdown); the caller removes DIR
#   pg_sql SQL                      runs SQL in the "org" database with psql, prints the rows unaligned
#   integration_cluster             (for scripts/integration/*.sh, after lib/integration.sh) starts one in $WORK/pg,
#                                   stopped when the script exits; when PostgreSQL cannot be installed, says SKIP
#                                   in one line and ends the script with status 0

PG_BIN=/usr/lib/postgresql/15/bin

ensure_postgres() {
  [ -x "$PG_BIN/initdb" ] && command -v psql >/dev/null 2>&1 && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "postgresql-15 is missing and this is not root: install it with sudo apt-get install postgresql-15" >&2
    return 1
  fi
  echo "==> installing: postgresql-15" >&2
  apt-get update -qq >&2 || return 1
  # Debian's package would create and start a "main" cluster of its own; policy-rc.d keeps it stopped.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-15 postgresql-client-15 >/dev/null || return 1
  [ -x "$PG_BIN/initdb" ]
}

# as_postgres CMD...: the server refuses to run as root, so when root, commands run as the postgres user.
as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

start_postgres() {
  PG_DIR=$1
  PG_PORT=${2:-$(free_port)}
  mkdir -p "$PG_DIR"
  if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$PG_DIR"; fi
  chmod 700 "$PG_DIR"
  # Locale C: text compares byte by byte, as the org's SQL expects of both backends. Trust on loopback only:
  # the cluster is reachable from this machine alone, and lives as long as the script that made it.
  as_postgres "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust --locale=C --encoding=UTF8 >"$PG_DIR/initdb.log" 2>&1 || {
    echo "initdb failed; see $PG_DIR/initdb.log" >&2
    return 1
  }
  as_postgres "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DIR -c max_connections=200 -c fsync=off" start >/dev/null || {
    echo "PostgreSQL did not start; see $PG_DIR/server.log" >&2
    return 1
  }
  as_postgres psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -q -c "CREATE DATABASE org" postgres >/dev/null || return 1
  PG_URL="postgres://postgres@127.0.0.1:$PG_PORT/org"
  export PG_URL PG_PORT PG_DIR
}

stop_postgres() {
  local dir=${1:-$PG_DIR}
  [ -n "$dir" ] && [ -f "$dir/data/postmaster.pid" ] || return 0
  as_postgres "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
}

pg_sql() {
  psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d org -X -q -A -t -c "$1"
}

integration_cluster() {
  if ! ensure_postgres >"$WORK/install.log" 2>&1; then
    echo "SKIP: PostgreSQL 15 cannot be installed on this machine ($(tail -1 "$WORK/install.log")); the org's PostgreSQL backend was not tested"
    exit 0
  fi
  chmod 755 "$WORK"
  trap 'end_children; stop_postgres "$WORK/pg"; rm -rf "$WORK"' EXIT
  start_postgres "$WORK/pg"
}
