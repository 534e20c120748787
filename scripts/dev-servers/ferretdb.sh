#!/usr/bin/env bash
# FerretDB (MongoDB wire protocol) on loopback, for integration tests, CI and
# the production bench. Built from the Go module proxy via the wrapper module in
# ferretdb/ (go.mod + go.sum pin every dependency). Two storage backends:
#   postgresql (default): a PostgreSQL cluster of its own, run by postgresql.sh
#                         (Debian's postgresql package), started and stopped with it;
#   sqlite:               SQLite files under $DEV_SERVERS_HOME/ferretdb/data.
#
#   scripts/dev-servers/ferretdb.sh install|start|stop|restart|status|reset|logs
#
# Env: DEV_SERVERS_HOME (default <repo>/.dev-servers), FERRETDB_PORT (27018),
#      FERRETDB_BACKEND (postgresql | sqlite), FERRETDB_POSTGRESQL_POOL (150:
#      connections FerretDB may open to PostgreSQL; see below),
#      FERRETDB_START_TIMEOUT (60), FERRETDB_LOG_LEVEL (info),
#      FERRETDB_DEBUG_ADDR (- = disabled; e.g. 127.0.0.1:8089 for /metrics),
#      and postgresql.sh's (POSTGRESQL_PORT, 25432, ...).
# `start` and `status` print MONGO_URL=mongodb://127.0.0.1:<port>/ on stdout.
set -euo pipefail

DS_NAME=ferretdb
# shellcheck source=_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/_lib.sh"

FERRETDB_HOST=127.0.0.1
FERRETDB_PORT="${FERRETDB_PORT:-27018}"
FERRETDB_START_TIMEOUT="${FERRETDB_START_TIMEOUT:-60}"
FERRETDB_LOG_LEVEL="${FERRETDB_LOG_LEVEL:-info}"
FERRETDB_DEBUG_ADDR="${FERRETDB_DEBUG_ADDR:--}"
FERRETDB_BACKEND="${FERRETDB_BACKEND:-postgresql}"
# FerretDB v1.24 holds one pooled PostgreSQL connection per statement of an update command until
# the command ends, plus one for the statement's write: a pool smaller than the update statements
# in flight waits for ever (pgx's default pool is max(4, CPUs)). The read-store adapter keeps
# them to 64 per process (infrastructure/read-store/mongo.ts); PostgreSQL allows 200 connections.
FERRETDB_POSTGRESQL_POOL="${FERRETDB_POSTGRESQL_POOL:-150}"
case "$FERRETDB_BACKEND" in
  postgresql | sqlite) ;;
  *) die "FERRETDB_BACKEND must be postgresql or sqlite, not '$FERRETDB_BACKEND'" ;;
esac
PG_SCRIPT="$DEV_SERVERS_DIR/postgresql.sh"

SRC_DIR="$DEV_SERVERS_DIR/ferretdb"
FHOME="$DEV_SERVERS_HOME/ferretdb"
BUILD_DIR="$FHOME/build"
BIN="$FHOME/bin/ferretdb"
PROBE_BIN="$FHOME/bin/probe"
DATA_DIR="$FHOME/data"
STATE_DIR="$FHOME/state"
LOG_DIR="$FHOME/logs"
PID_FILE="$FHOME/ferretdb.pid"
OUT_FILE="$LOG_DIR/ferretdb.log"
STAMP="$FHOME/bin/.stamp"
PID_PATTERN="$BIN --handler="
FERRETDB_MODULE="github.com/FerretDB/FerretDB"

mongo_url() { printf 'mongodb://%s:%s/' "$FERRETDB_HOST" "$FERRETDB_PORT"; }

ferretdb_version() {
  awk -v m="$FERRETDB_MODULE" '$1 == m { print $2; exit } $1 == "require" && $2 == m { print $3; exit }' \
    "$SRC_DIR/go.mod"
}

# Hermetic Go settings: the user's GOFLAGS (e.g. -mod=mod) must not leak into
# the vendor build, never download a toolchain, and build a static binary.
go_env() {
  export GOFLAGS="-buildvcs=false"
  export GOTOOLCHAIN=local
  export CGO_ENABLED=0
}

install_stamp() {
  printf '%s %s\n' "$(file_hash "$SRC_DIR/go.mod" "$SRC_DIR/go.sum" "$SRC_DIR/tools.go" \
    "$SRC_DIR/probe/main.go")" "$(go env GOVERSION)"
}

is_installed() {
  [[ -x $BIN ]] && [[ -x $PROBE_BIN ]] && [[ -f $STAMP ]] && [[ "$(cat "$STAMP")" == "$(install_stamp)" ]]
}

# Why vendor: `go install github.com/FerretDB/FerretDB/cmd/ferretdb@vX` (and
# `go build` of that package from a wrapper module) panics at start-up with
# "Invalid build/version/version.txt file content": build/version embeds
# *.txt files that FerretDB's release process generates from git (`task
# gen-version`) and that are not in the module zip, and the check runs whenever
# the main module recorded in the binary is github.com/FerretDB/FerretDB.
# Files inside GOMODCACHE are read-only and cannot be replaced via -overlay, so
# we vendor the (already downloaded, checksum-verified) modules into a scratch
# build dir, drop version.txt into the vendored build/version package and build
# the unmodified upstream cmd/ferretdb with -mod=vendor.
do_install() {
  need_cmd go
  go_env
  local version
  version="$(ferretdb_version)"
  [[ -n $version ]] || die "cannot read the $FERRETDB_MODULE version from $SRC_DIR/go.mod"
  if is_installed; then
    log "FerretDB $version already installed: $BIN"
    return 0
  fi
  if pid_alive "$PID_FILE" "$PID_PATTERN" >/dev/null; then
    die "FerretDB needs (re)building but it is running: run '$0 stop' first"
  fi
  local t0
  t0=$(now_s)
  log "building FerretDB $version ($(go env GOVERSION); module cache $(go env GOMODCACHE))"
  rm -rf "$BUILD_DIR"
  mkdir -p "$BUILD_DIR" "$(dirname "$BIN")"
  cp -R "$SRC_DIR/go.mod" "$SRC_DIR/go.sum" "$SRC_DIR/tools.go" "$SRC_DIR/probe" "$BUILD_DIR/"
  (
    cd "$BUILD_DIR"
    # Fetches (from GOPROXY) only the modules whose packages the build needs and
    # that the module cache lacks, verifying each against go.sum.
    go mod vendor
    vdir="vendor/$FERRETDB_MODULE/build/version"
    [[ -d $vdir ]] || { echo "vendored $vdir missing" >&2; exit 1; }
    printf '%s\n' "$version" >"$vdir/version.txt"
    printf '%s\n' "dev-servers" >"$vdir/package.txt"
    go build -mod=vendor -trimpath -ldflags="-s -w" -o "$BIN.tmp" "$FERRETDB_MODULE/cmd/ferretdb"
    # readiness probe (official Go driver, already in the module graph)
    go build -mod=vendor -trimpath -ldflags="-s -w" -o "$PROBE_BIN.tmp" ./probe
  ) || die "FerretDB build failed (build dir kept: $BUILD_DIR)"
  mv -f "$BIN.tmp" "$BIN"
  mv -f "$PROBE_BIN.tmp" "$PROBE_BIN"
  rm -rf "$BUILD_DIR" # the vendor tree is ~240 MB; the Go build cache keeps compiled packages
  local reported
  reported="$("$BIN" --version 2>&1 | sed -n 's/^version: //p')"
  [[ $reported == "$version" ]] || die "built binary reports version '$reported', expected $version"
  install_stamp >"$STAMP"
  log "installed FerretDB $version ($(du -h "$BIN" | cut -f1)) in $(($(now_s) - t0))s"
}

# A real round-trip: handshake + `ping` with the official Go driver.
# (`ferretdb ping` is no use here: it insists on --setup-username/password and
# authenticates, which FerretDB v1 without --test-enable-new-auth rejects.)
probe() {
  port_open "$FERRETDB_HOST" "$FERRETDB_PORT" || return 1
  "$PROBE_BIN" -url "$(mongo_url)" -timeout "${1:-3}s" >/dev/null 2>&1
}

# probe with a timeout in ms (wait_ready's and server_status's convention).
probe_ms() { probe "$((($1 + 999) / 1000))"; }

print_env() { printf 'MONGO_URL=%s\n' "$(mongo_url)"; }

# The backend of the running FerretDB (from its command line), or nothing.
running_backend() {
  local pid=$1
  tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | sed -n 's/^--handler=//p' | head -n 1
}

do_start() {
  local pid running
  if pid="$(pid_alive "$PID_FILE" "$PID_PATTERN")"; then
    running="$(running_backend "$pid")"
    if [[ -n $running && $running != "$FERRETDB_BACKEND" ]]; then
      die "FerretDB is running with the $running backend (pid $pid), $FERRETDB_BACKEND was asked for: run '$0 stop' first (or set FERRETDB_BACKEND=$running)"
    fi
    if [[ $FERRETDB_BACKEND == postgresql ]] && ! bash "$PG_SCRIPT" status >/dev/null 2>&1; then
      log "pid $pid is alive but its PostgreSQL is not answering; restarting both"
    elif probe 5; then
      log "already running (pid $pid, $FERRETDB_BACKEND backend)"
      is_installed || log "note: the installed build is out of date; '$0 restart' to pick up the change"
      print_env
      return 0
    else
      log "pid $pid is alive but not answering; restarting it"
    fi
    stop_pid "$PID_FILE" "$PID_PATTERN" 20
  fi
  do_install
  port_open "$FERRETDB_HOST" "$FERRETDB_PORT" &&
    die "port $FERRETDB_HOST:$FERRETDB_PORT is already in use by another process (set FERRETDB_PORT)"

  local t0 backend_args pg_env
  if [[ $FERRETDB_BACKEND == postgresql ]]; then
    # Idempotent: starts the cluster (and initdb's it the first time) or finds it running.
    pg_env="$(bash "$PG_SCRIPT" start)" || die "PostgreSQL did not start (see '$PG_SCRIPT logs')"
    pg_env="${pg_env##*POSTGRESQL_URL=}"
    [[ $pg_env == postgres://* ]] || die "postgresql.sh start printed no POSTGRESQL_URL"
    backend_args=(--handler=postgresql --postgresql-url="$pg_env?pool_max_conns=$FERRETDB_POSTGRESQL_POOL")
  else
    mkdir -p "$DATA_DIR"
    backend_args=(--handler=sqlite --sqlite-url="file:$DATA_DIR/")
  fi
  mkdir -p "$STATE_DIR" "$LOG_DIR"
  t0=$(now_s)
  log "starting FerretDB $(ferretdb_version) (${backend_args[1]#--}) on $(mongo_url), log $OUT_FILE"
  spawn_bg "$PID_FILE" "$OUT_FILE" \
    env FERRETDB_TELEMETRY=disable DO_NOT_TRACK=1 \
    "$BIN" "${backend_args[@]}" \
    --listen-addr="$FERRETDB_HOST:$FERRETDB_PORT" \
    --state-dir="$STATE_DIR" --telemetry=disable \
    --debug-addr="$FERRETDB_DEBUG_ADDR" --log-level="$FERRETDB_LOG_LEVEL"

  pid="$(wait_ready FerretDB "$PID_FILE" "$PID_PATTERN" "$FERRETDB_HOST" "$FERRETDB_PORT" "$FERRETDB_START_TIMEOUT" probe_ms "$OUT_FILE")"
  log "ready in $(($(now_s) - t0))s (pid $pid)"
  print_env
}

# Stops FerretDB, then (postgresql backend) the PostgreSQL cluster that only it uses.
do_stop() {
  stop_pid "$PID_FILE" "$PID_PATTERN" 20
  if [[ -f $DEV_SERVERS_HOME/postgresql/postgresql.pid ]]; then bash "$PG_SCRIPT" stop; fi
}

do_status() {
  local pid backend=""
  if pid="$(pid_alive "$PID_FILE" "$PID_PATTERN")"; then backend="$(running_backend "$pid")"; fi
  server_status "FerretDB $(ferretdb_version), ${backend:-?} backend" "$PID_FILE" "$PID_PATTERN" probe_ms print_env
}

do_reset() {
  do_stop
  log "removing databases, state and logs under $FHOME (keeps the binary)"
  rm -rf "$DATA_DIR" "$STATE_DIR" "$LOG_DIR"
  if [[ $FERRETDB_BACKEND == postgresql || -d $DEV_SERVERS_HOME/postgresql ]]; then bash "$PG_SCRIPT" reset; fi
}

usage() {
  cat >&2 <<EOF
usage: $0 install|start|stop|restart|status|reset|logs
  install  build FerretDB $(ferretdb_version) into $BIN (idempotent; Go module + build caches reused)
  start    install if needed, start on $(mongo_url) with the $FERRETDB_BACKEND backend
           (FERRETDB_BACKEND=postgresql|sqlite; postgresql starts postgresql.sh first),
           wait until it answers, print MONGO_URL=
  stop     stop it (SIGTERM, then SIGKILL after 20s), and its PostgreSQL
  restart  stop + start (data is kept)
  status   exit 0 and print MONGO_URL= if ready; 1 not answering; 3 stopped
  reset    stop and delete all databases (the PostgreSQL cluster too)
  logs     tail the server log
EOF
}

cmd="${1:-}"
case "$cmd" in
  install) with_lock ferretdb do_install ;;
  start) with_lock ferretdb do_start ;;
  stop) with_lock ferretdb do_stop ;;
  restart) with_lock ferretdb do_stop && with_lock ferretdb do_start ;;
  status) do_status ;;
  reset) with_lock ferretdb do_reset ;;
  logs) tail -n "${LINES_TO_SHOW:-100}" "$OUT_FILE" ;;
  -h | --help | help) usage ;;
  *) usage; exit 2 ;;
esac
