#!/usr/bin/env bash
# A MongoDB wire-protocol server on loopback for integration tests, CI and the production bench:
# bwaldvogel's mongo-java-server (jars from Maven Central via mongo-java-server/pom.xml) on its
# H2 MVStore backend, one file, data kept across stop/start; MONGO_JAVA_SERVER_BACKEND=memory
# keeps it in memory instead. The launcher, mongo-java-server/MongoWireServer.java, adds index
# lookups for queries that name a unique index's keys and more (see its header).
#
#   scripts/dev-servers/mongo-java-server.sh install|start|stop|restart|status|reset|logs
#
# Env: DEV_SERVERS_HOME (default <repo>/.dev-servers), MONGO_JAVA_SERVER_PORT (27019),
#      MONGO_JAVA_SERVER_BACKEND (h2 | memory), MONGO_JAVA_SERVER_HEAP_OPTS (-Xmx1g -Xms128m),
#      MONGO_JAVA_SERVER_START_TIMEOUT (60), MONGO_JAVA_SERVER_INSTANCE_DIR (default
#      $DEV_SERVERS_HOME/mongo-java-server): where this server keeps its data, log and pid file.
#      With MONGO_JAVA_SERVER_PORT it runs a second server beside the default one (the fault suite
#      does), sharing the installed jars.
# `start` and `status` print MONGO_URL=mongodb://127.0.0.1:<port>/ on stdout.
set -euo pipefail

DS_NAME=mongo-java-server
# shellcheck source=_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/_lib.sh"

MJS_HOST=127.0.0.1
MJS_PORT="${MONGO_JAVA_SERVER_PORT:-27019}"
MJS_BACKEND="${MONGO_JAVA_SERVER_BACKEND:-h2}"
MJS_HEAP_OPTS="${MONGO_JAVA_SERVER_HEAP_OPTS:--Xmx1g -Xms128m}"
MJS_START_TIMEOUT="${MONGO_JAVA_SERVER_START_TIMEOUT:-60}"

SRC_DIR="$DEV_SERVERS_DIR/mongo-java-server"
MHOME="$DEV_SERVERS_HOME/mongo-java-server"
LIB_DIR="$MHOME/lib"
CLASSES_DIR="$MHOME/classes"
INSTANCE_DIR="${MONGO_JAVA_SERVER_INSTANCE_DIR:-$MHOME}"
DATA_DIR="$INSTANCE_DIR/data"
LOG_DIR="$INSTANCE_DIR/logs"
PID_FILE="$INSTANCE_DIR/server.pid"
# One lock per instance: starting or stopping another server never waits for this one.
LOCK_NAME=mongo-java-server
[[ $INSTANCE_DIR == "$MHOME" ]] || LOCK_NAME="mongo-java-server-$MJS_PORT"
OUT_FILE="$LOG_DIR/server.log"
PID_PATTERN="MongoWireServer serve"

case "$MJS_BACKEND" in
  h2 | memory) ;;
  *) die "MONGO_JAVA_SERVER_BACKEND must be h2 or memory, not '$MJS_BACKEND'" ;;
esac

mjs_version() {
  sed -n 's:.*<mongo-java-server.version>\(.*\)</mongo-java-server.version>.*:\1:p' "$SRC_DIR/pom.xml" | head -n1
}

lib_stamp() { file_hash "$SRC_DIR/pom.xml"; }
classes_stamp() { file_hash "$SRC_DIR/pom.xml" "$SRC_DIR/MongoWireServer.java"; }

lib_ok() { maven_jars_ok "$LIB_DIR" "$(lib_stamp)" 'mongo-java-server-core-*.jar'; }
classes_ok() {
  [[ -f $CLASSES_DIR/.stamp ]] && [[ "$(cat "$CLASSES_DIR/.stamp")" == "$(classes_stamp)" ]] &&
    [[ -f $CLASSES_DIR/MongoWireServer.class ]]
}

do_install() {
  need_cmd java javac mvn
  if lib_ok && classes_ok; then
    log "mongo-java-server $(mjs_version) already installed in $MHOME"
    return 0
  fi
  local t0
  t0=$(now_s)
  mkdir -p "$MHOME"
  if pid_alive "$PID_FILE" "$PID_PATTERN" >/dev/null; then
    die "mongo-java-server needs (re)installing but is running: run '$0 stop' first"
  fi
  if ! lib_ok; then
    log "installing mongo-java-server $(mjs_version) jars from Maven Central into $LIB_DIR"
    maven_jars "$SRC_DIR" "$LIB_DIR" "$MHOME/install.log" "$(lib_stamp)" 'mongo-java-server-core-*.jar' 'mongo-java-server-h2-backend-*.jar'
  fi
  log "compiling the launcher"
  rm -rf "$CLASSES_DIR"
  mkdir -p "$CLASSES_DIR"
  javac -nowarn -d "$CLASSES_DIR" -cp "$LIB_DIR/*" "$SRC_DIR/MongoWireServer.java" || die "javac MongoWireServer failed"
  classes_stamp >"$CLASSES_DIR/.stamp"
  log "installed mongo-java-server $(mjs_version): $(find "$LIB_DIR" -name '*.jar' | wc -l) jars, in $(($(now_s) - t0))s"
}

probe() {
  java -Xmx32m -XX:TieredStopAtLevel=1 -Xshare:auto -cp "$LIB_DIR/*:$CLASSES_DIR" \
    MongoWireServer probe "$MJS_HOST" "$MJS_PORT" "${1:-3000}" >/dev/null 2>&1
}

print_env() { printf 'MONGO_URL=mongodb://%s:%s/\n' "$MJS_HOST" "$MJS_PORT"; }

do_start() {
  local pid
  if pid="$(pid_alive "$PID_FILE" "$PID_PATTERN")"; then
    if probe 3000; then
      log "already running (pid $pid)"
      { lib_ok && classes_ok; } || log "note: the installed build is out of date; '$0 restart' to pick up the change"
      print_env
      return 0
    fi
    log "pid $pid is alive but not answering; restarting it"
    stop_pid "$PID_FILE" "$PID_PATTERN" 20
  fi
  do_install
  port_open "$MJS_HOST" "$MJS_PORT" && die "port $MJS_HOST:$MJS_PORT is already in use by another process (set MONGO_JAVA_SERVER_PORT)"

  local t0 file=""
  mkdir -p "$DATA_DIR" "$LOG_DIR"
  [[ $MJS_BACKEND == h2 ]] && file="$DATA_DIR/mongo.mv.db"
  t0=$(now_s)
  log "starting mongo-java-server $(mjs_version) ($MJS_BACKEND) on $MJS_HOST:$MJS_PORT, log in $OUT_FILE"
  # shellcheck disable=SC2086 # MJS_HEAP_OPTS is a list of JVM flags
  spawn_bg "$PID_FILE" "$OUT_FILE" \
    java $MJS_HEAP_OPTS -XX:+UseG1GC -Djava.awt.headless=true -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
    -cp "$LIB_DIR/*:$CLASSES_DIR" MongoWireServer serve "$MJS_HOST" "$MJS_PORT" $file

  pid="$(wait_ready mongo-java-server "$PID_FILE" "$PID_PATTERN" "$MJS_HOST" "$MJS_PORT" "$MJS_START_TIMEOUT" probe "$OUT_FILE")"
  log "ready in $(($(now_s) - t0))s (pid $pid)"
  print_env
}

do_stop() { stop_pid "$PID_FILE" "$PID_PATTERN" 20; }

do_status() { server_status "mongo-java-server $(mjs_version)" "$PID_FILE" "$PID_PATTERN" probe print_env; }

do_reset() {
  do_stop
  log "removing data and logs under $INSTANCE_DIR (keeps installed jars)"
  rm -rf "$DATA_DIR" "$LOG_DIR"
}

usage() {
  cat >&2 <<EOF
usage: $0 install|start|stop|restart|status|reset|logs
  install  fetch mongo-java-server $(mjs_version) jars and compile the launcher (idempotent; cache: ~/.m2 and $MHOME)
  start    install if needed, start the server ($MJS_BACKEND backend), wait until it answers, print MONGO_URL=
  stop     stop the server (SIGTERM, then SIGKILL after 20s)
  restart  stop + start (the H2 backend keeps its data)
  status   exit 0 and print MONGO_URL= if ready; 1 not ready; 3 stopped
  reset    stop and delete the data and logs
  logs     tail the server log
EOF
}

cmd="${1:-}"
case "$cmd" in
  install) with_lock "$LOCK_NAME" do_install ;;
  start) with_lock "$LOCK_NAME" do_start ;;
  stop) with_lock "$LOCK_NAME" do_stop ;;
  restart) with_lock "$LOCK_NAME" do_stop && with_lock "$LOCK_NAME" do_start ;;
  status) do_status ;;
  reset) with_lock "$LOCK_NAME" do_reset ;;
  logs) tail -n "${LINES_TO_SHOW:-100}" "$OUT_FILE" ;;
  -h | --help | help) usage ;;
  *) usage; exit 2 ;;
esac
