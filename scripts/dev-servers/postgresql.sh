#!/usr/bin/env bash
# PostgreSQL (Debian's `postgresql` package) on loopback, as the storage of
# FerretDB's PostgreSQL backend (ferretdb.sh, FERRETDB_BACKEND=postgresql) for
# integration tests, CI and the production bench. Nothing is downloaded: the
# server binaries come from the system (apt-get install postgresql).
#
#   scripts/dev-servers/postgresql.sh install|start|stop|restart|status|reset|logs
#
# Env: DEV_SERVERS_HOME (default <repo>/.dev-servers), POSTGRESQL_PORT (25432),
#      POSTGRESQL_BIN_DIR (default: newest /usr/lib/postgresql/*/bin),
#      POSTGRESQL_OS_USER (as root: postgres; otherwise the current user),
#      POSTGRESQL_DATABASE (ferretdb), POSTGRESQL_START_TIMEOUT (60),
#      POSTGRESQL_SYNCHRONOUS_COMMIT (off), POSTGRESQL_MAX_CONNECTIONS (200).
# `start` and `status` print POSTGRESQL_URL=postgres://postgres@127.0.0.1:<port>/<db> on stdout.
set -euo pipefail

DS_NAME=postgresql
# shellcheck source=_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/_lib.sh"

PG_HOST=127.0.0.1
PG_PORT="${POSTGRESQL_PORT:-25432}"
PG_DATABASE="${POSTGRESQL_DATABASE:-ferretdb}"
PG_START_TIMEOUT="${POSTGRESQL_START_TIMEOUT:-60}"
PG_SYNCHRONOUS_COMMIT="${POSTGRESQL_SYNCHRONOUS_COMMIT:-off}"
PG_MAX_CONNECTIONS="${POSTGRESQL_MAX_CONNECTIONS:-200}"
PG_SUPERUSER=postgres # the database role initdb creates (trust authentication, loopback and socket only)

PHOME="$DEV_SERVERS_HOME/postgresql"
DATA_DIR="$PHOME/data"
LOG_DIR="$PHOME/logs"
PID_FILE="$PHOME/postgresql.pid"
OUT_FILE="$LOG_DIR/postgresql.log"

# The server binaries: Debian installs them under /usr/lib/postgresql/<major>/bin
# (only the client wrappers are on PATH).
pg_bin_dir() {
  if [[ -n ${POSTGRESQL_BIN_DIR:-} ]]; then
    printf '%s\n' "$POSTGRESQL_BIN_DIR"
    return
  fi
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [[ -z $d ]] && command -v pg_config >/dev/null 2>&1; then d="$(pg_config --bindir)"; fi
  printf '%s\n' "$d"
}
BIN_DIR="$(pg_bin_dir)"
PID_PATTERN="$BIN_DIR/postgres -D $DATA_DIR"

# initdb and postgres refuse to run as root: as root they run as Debian's
# `postgres` user (or POSTGRESQL_OS_USER); otherwise as the caller.
os_user() {
  if [[ -n ${POSTGRESQL_OS_USER:-} ]]; then
    printf '%s\n' "$POSTGRESQL_OS_USER"
  elif [[ $(id -u) -eq 0 ]]; then
    printf 'postgres\n'
  else
    id -un
  fi
}
OS_USER="$(os_user)"

# as_user CMD... -> CMD as $OS_USER (exec in place, so a background pid is the server's).
as_user() {
  if [[ $(id -un) == "$OS_USER" ]]; then
    "$@"
  else
    setpriv --reuid="$OS_USER" --regid="$(id -g "$OS_USER")" --init-groups -- "$@"
  fi
}

pg_url() { printf 'postgres://%s@%s:%s/%s' "$PG_SUPERUSER" "$PG_HOST" "$PG_PORT" "$PG_DATABASE"; }
print_env() { printf 'POSTGRESQL_URL=%s\n' "$(pg_url)"; }

# psql over TCP to the given database (trust authentication on loopback).
run_psql() {
  local db=$1
  shift
  PGCONNECT_TIMEOUT=3 psql -X -q -v ON_ERROR_STOP=1 -h "$PG_HOST" -p "$PG_PORT" -U "$PG_SUPERUSER" -d "$db" "$@"
}

# A real round trip: a query on the FerretDB database. (Its argument, a timeout in ms, is
# wait_ready's and server_status's convention; psql's own connect timeout is 3 s.)
probe() {
  port_open "$PG_HOST" "$PG_PORT" || return 1
  [[ "$(run_psql "$PG_DATABASE" -tA -c 'SELECT 1' 2>/dev/null)" == 1 ]]
}

# Any round trip, while starting (the FerretDB database may not exist yet).
probe_server() { run_psql postgres -tA -c 'SELECT 1' >/dev/null 2>&1; }

do_install() {
  [[ -n $BIN_DIR && -x $BIN_DIR/postgres && -x $BIN_DIR/initdb ]] ||
    die "PostgreSQL server binaries not found (looked in ${BIN_DIR:-/usr/lib/postgresql/*/bin}): apt-get install postgresql, or set POSTGRESQL_BIN_DIR"
  need_cmd psql setpriv
  id -u "$OS_USER" >/dev/null 2>&1 || die "OS user '$OS_USER' does not exist (set POSTGRESQL_OS_USER)"
  if [[ -f $DATA_DIR/PG_VERSION ]]; then
    local have want
    have="$(cat "$DATA_DIR/PG_VERSION")"
    want="$("$BIN_DIR/postgres" --version | sed -E 's/.* ([0-9]+)(\.[0-9]+)*.*/\1/')"
    [[ $have == "$want" ]] || die "$DATA_DIR was made by PostgreSQL $have, the server here is $want: run '$0 reset'"
    log "cluster already initialised: $DATA_DIR (PostgreSQL $have)"
    return 0
  fi
  # The OS user must reach the data directory: every directory above it needs o+x.
  mkdir -p "$PHOME" "$LOG_DIR"
  local d=$PHOME
  while [[ $d != / ]]; do
    if ! as_user test -x "$d"; then
      die "user '$OS_USER' cannot enter $d: set DEV_SERVERS_HOME to a place it can reach, or POSTGRESQL_OS_USER"
    fi
    d="$(dirname "$d")"
  done
  rm -rf "$DATA_DIR"
  mkdir -p "$DATA_DIR"
  chown "$OS_USER:" "$DATA_DIR" "$LOG_DIR"
  chmod 700 "$DATA_DIR"
  log "initdb $DATA_DIR as OS user '$OS_USER' ($("$BIN_DIR/postgres" --version))"
  # UTF8 + C locale: what FerretDB's PostgreSQL backend checks at connect.
  as_user "$BIN_DIR/initdb" -D "$DATA_DIR" --username="$PG_SUPERUSER" --auth=trust \
    --encoding=UTF8 --locale=C --no-instructions >"$LOG_DIR/initdb.log" 2>&1 ||
    { tail -n 20 "$LOG_DIR/initdb.log" >&2; rm -rf "$DATA_DIR"; die "initdb failed (see $LOG_DIR/initdb.log)"; }
}

do_start() {
  local pid
  if pid="$(pid_alive "$PID_FILE" "$PID_PATTERN")"; then
    if probe; then
      log "already running (pid $pid)"
      print_env
      return 0
    fi
    log "pid $pid is alive but not answering; restarting it"
    do_stop
  fi
  do_install
  port_open "$PG_HOST" "$PG_PORT" &&
    die "port $PG_HOST:$PG_PORT is already in use by another process (set POSTGRESQL_PORT)"
  # A server killed with -9 leaves postmaster.pid behind; postgres itself checks whether that
  # pid is still a postgres on this data directory, so a stale file is harmless.

  local t0 drop_privileges=()
  [[ $(id -un) == "$OS_USER" ]] || drop_privileges=(setpriv --reuid="$OS_USER" --regid="$(id -g "$OS_USER")" --init-groups --)
  t0=$(now_s)
  log "starting $("$BIN_DIR/postgres" --version) on $PG_HOST:$PG_PORT, data and socket in $DATA_DIR, log $OUT_FILE"
  # Loopback TCP plus a unix socket in the data directory (not /var/run/postgresql, which
  # belongs to the system's own cluster). synchronous_commit=off: a commit is acknowledged
  # before its WAL reaches the disk (flushed within 3 × wal_writer_delay) - the same
  # guarantee as a standalone MongoDB's default {w: 1} write concern, whose journal is
  # flushed every 100 ms. Data stays consistent after a crash (fsync stays on).
  spawn_bg "$PID_FILE" "$OUT_FILE" \
    "${drop_privileges[@]}" "$BIN_DIR/postgres" -D "$DATA_DIR" \
    -c listen_addresses="$PG_HOST" -c port="$PG_PORT" \
    -c unix_socket_directories="$DATA_DIR" \
    -c max_connections="$PG_MAX_CONNECTIONS" \
    -c synchronous_commit="$PG_SYNCHRONOUS_COMMIT" \
    -c logging_collector=off -c log_min_messages=warning

  pid="$(wait_ready PostgreSQL "$PID_FILE" "$PID_PATTERN" "$PG_HOST" "$PG_PORT" "$PG_START_TIMEOUT" probe_server "$OUT_FILE")"
  # The database FerretDB keeps its collections in (created once).
  if [[ -z "$(run_psql postgres -tA -c "SELECT 1 FROM pg_database WHERE datname = '$PG_DATABASE'")" ]]; then
    log "creating database $PG_DATABASE"
    run_psql postgres -c "CREATE DATABASE \"$PG_DATABASE\"" || die "could not create database $PG_DATABASE"
  fi
  probe || die "PostgreSQL answers but database $PG_DATABASE does not"
  log "ready in $(($(now_s) - t0))s (pid $pid)"
  print_env
}

# Fast shutdown (SIGINT: roll back open transactions, disconnect clients, checkpoint),
# not SIGTERM's smart shutdown, which waits for every client (FerretDB's pool) to leave.
do_stop() {
  local pid deadline
  if ! pid="$(pid_alive "$PID_FILE" "$PID_PATTERN")"; then
    log "not running"
    rm -f "$PID_FILE"
    return 0
  fi
  log "stopping pid $pid (fast shutdown, up to 30s)"
  kill -INT "$pid" 2>/dev/null || true
  deadline=$(($(now_s) + 30))
  while kill -0 "$pid" 2>/dev/null; do
    if (($(now_s) >= deadline)); then
      log "pid $pid still alive after 30s: immediate shutdown (SIGQUIT), then SIGKILL"
      kill -QUIT "$pid" 2>/dev/null || true
      sleep 3
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.3
  done
  rm -f "$PID_FILE"
  log "stopped"
}

do_status() { server_status "$("$BIN_DIR/postgres" --version)" "$PID_FILE" "$PID_PATTERN" probe print_env; }

do_reset() {
  do_stop
  log "removing the cluster and logs under $PHOME"
  rm -rf "$DATA_DIR" "$LOG_DIR"
}

usage() {
  cat >&2 <<EOF
usage: $0 install|start|stop|restart|status|reset|logs
  install  check the server binaries ($BIN_DIR) and initdb $DATA_DIR (idempotent)
  start    install if needed, start on $PG_HOST:$PG_PORT, wait until it answers, print POSTGRESQL_URL=
  stop     fast shutdown (SIGINT), then SIGQUIT / SIGKILL after 30s
  restart  stop + start (data is kept)
  status   exit 0 and print POSTGRESQL_URL= if ready; 1 not answering; 3 stopped
  reset    stop and delete the cluster
  logs     tail the server log
EOF
}

cmd="${1:-}"
case "$cmd" in
  install) with_lock postgresql do_install ;;
  start) with_lock postgresql do_start ;;
  stop) with_lock postgresql do_stop ;;
  restart) with_lock postgresql do_stop && with_lock postgresql do_start ;;
  status) do_status ;;
  reset) with_lock postgresql do_reset ;;
  logs) tail -n "${LINES_TO_SHOW:-100}" "$OUT_FILE" ;;
  -h | --help | help) usage ;;
  *) usage; exit 2 ;;
esac
