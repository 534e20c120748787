# shellcheck shell=bash
# Shared helpers for scripts/dev-servers/*.sh. Sourced, never executed.
#
# Conventions:
#   * progress / diagnostics go to stderr, so that `start` and `status`
#     print only KEY=value lines on stdout (safe for `export $(... start)`).
#   * everything a server writes lives under $DEV_SERVERS_HOME (gitignored).

DEV_SERVERS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$DEV_SERVERS_DIR/../.." && pwd)"
DEV_SERVERS_HOME="${DEV_SERVERS_HOME:-$REPO_ROOT/.dev-servers}"

log() { printf '[%s] %s\n' "${DS_NAME:-dev-servers}" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

need_cmd() {
  local c
  for c in "$@"; do
    command -v "$c" >/dev/null 2>&1 || die "required command not found: $c"
  done
}

# now_s: seconds since epoch (integer)
now_s() { date +%s; }

# port_open HOST PORT -> 0 if something accepts TCP connections there.
port_open() {
  local host=$1 port=$2
  (exec 3<>"/dev/tcp/$host/$port") >/dev/null 2>&1
}

# pid_alive PIDFILE PATTERN -> prints pid and returns 0 when the pid in PIDFILE
# is alive AND its command line contains PATTERN (guards against pid reuse).
pid_alive() {
  local pidfile=$1 pattern=$2 pid
  [[ -f $pidfile ]] || return 1
  pid="$(tr -dc '0-9' <"$pidfile")"
  [[ -n $pid ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  if [[ -r /proc/$pid/cmdline ]]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$pattern" || return 1
  fi
  printf '%s\n' "$pid"
}

# alive_after_spawn PIDFILE PATTERN -> pid_alive for a server spawn_bg just started. For a moment
# the spawned pid is still the forked shell, or between two execs (nohup -> setsid -> the server),
# and its command line does not show the server yet: a miss is checked again for up to 1 s.
alive_after_spawn() {
  local i
  for i in 1 2 3 4 5 6 7 8 9 10; do
    pid_alive "$@" && return 0
    sleep 0.1
  done
  return 1
}

# stop_pid PIDFILE PATTERN TIMEOUT_S -> SIGTERM, wait, then SIGKILL.
stop_pid() {
  local pidfile=$1 pattern=$2 timeout=${3:-30} pid deadline
  if ! pid="$(pid_alive "$pidfile" "$pattern")"; then
    log "not running"
    rm -f "$pidfile"
    return 0
  fi
  log "stopping pid $pid (SIGTERM, up to ${timeout}s)"
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$(($(now_s) + timeout))
  while kill -0 "$pid" 2>/dev/null; do
    if (($(now_s) >= deadline)); then
      log "pid $pid still alive after ${timeout}s, sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 1
      break
    fi
    sleep 0.5
  done
  rm -f "$pidfile"
  log "stopped"
}

# spawn_bg PIDFILE LOGFILE CMD... -> starts CMD detached (own session, stdin
# from /dev/null, stdout+stderr appended to LOGFILE) and writes its pid.
spawn_bg() {
  local pidfile=$1 logfile=$2
  shift 2
  mkdir -p "$(dirname "$pidfile")" "$(dirname "$logfile")"
  printf '\n===== %s starting: %s\n' "$(date -u +%FT%TZ)" "$*" >>"$logfile"
  # Non-interactive bash: the background child is not a process-group leader,
  # so setsid(1) calls setsid(2) and execs in place -> $! is the server's pid.
  # fd 9 is the with_lock() lock: the server must not inherit (and hold) it.
  nohup setsid "$@" >>"$logfile" 2>&1 </dev/null 9>&- &
  printf '%s\n' "$!" >"$pidfile"
}

# with_lock NAME CMD... -> serialise install/start/stop of one server
# (e.g. two test jobs calling `start` concurrently).
with_lock() {
  local name=$1
  shift
  mkdir -p "$DEV_SERVERS_HOME"
  (
    flock -w 600 9 || die "could not acquire lock $DEV_SERVERS_HOME/.$name.lock"
    "$@"
  ) 9>"$DEV_SERVERS_HOME/.$name.lock"
}

# file_hash FILE... -> short sha256 over the given files' contents.
file_hash() { cat "$@" | sha256sum | cut -c1-16; }

# maven_jars SRC_DIR LIB_DIR LOG_FILE STAMP REQUIRED_GLOB... -> fetches the runtime jars of
# SRC_DIR/pom.xml into LIB_DIR (replacing it whole) with `mvn dependency:copy-dependencies`, checks
# that each REQUIRED_GLOB matches a jar, and writes STAMP into LIB_DIR/.stamp. -B batch mode, -q
# quiet; the local ~/.m2 repository is the download cache, so a re-install after
# `rm -rf $DEV_SERVERS_HOME` needs no network.
maven_jars() {
  local src=$1 lib=$2 logfile=$3 stamp=$4 glob tmp
  shift 4
  tmp="$lib.tmp.$$"
  rm -rf "$tmp"
  if ! (cd "$src" && mvn -B -q -Dstyle.color=never dependency:copy-dependencies \
    -DoutputDirectory="$tmp") >"$logfile" 2>&1; then
    tail -n 40 "$logfile" >&2
    rm -rf "$tmp"
    die "mvn dependency:copy-dependencies failed (full output: $logfile)"
  fi
  for glob in "$@"; do
    compgen -G "$tmp/$glob" >/dev/null || { rm -rf "$tmp"; die "$glob missing after copy-dependencies"; }
  done
  printf '%s\n' "$stamp" >"$tmp/.stamp"
  rm -rf "$lib"
  mv "$tmp" "$lib"
}

# maven_jars_ok LIB_DIR STAMP REQUIRED_GLOB -> 0 when maven_jars installed that stamp there.
maven_jars_ok() {
  [[ -f $1/.stamp ]] && [[ "$(cat "$1/.stamp")" == "$2" ]] && compgen -G "$1/$3" >/dev/null
}

# wait_ready NAME PIDFILE PATTERN HOST PORT TIMEOUT_S PROBE LOGFILE... -> after spawn_bg, waits until
# the server's port is open and PROBE (a function, given a timeout in ms) succeeds, then prints the
# server's pid. Dies with the tails of the LOGFILEs when the server exits during start-up, or when
# it is not ready within TIMEOUT_S (stopping it first).
wait_ready() {
  local name=$1 pidfile=$2 pattern=$3 host=$4 port=$5 timeout=$6 probe_fn=$7 pid deadline
  shift 7
  deadline=$(($(now_s) + timeout))
  while :; do
    if ! pid="$(alive_after_spawn "$pidfile" "$pattern")"; then
      tail -n 40 "$@" >&2 2>/dev/null || true
      die "$name exited during startup (see $*)"
    fi
    if port_open "$host" "$port" && "$probe_fn" 3000; then
      break
    fi
    if (($(now_s) >= deadline)); then
      tail -n 40 "$@" >&2 2>/dev/null || true
      stop_pid "$pidfile" "$pattern" 10
      die "$name not ready after ${timeout}s"
    fi
    sleep 0.5
  done
  printf '%s\n' "$pid"
}

# server_status NAME PIDFILE PATTERN PROBE PRINT_ENV -> the `status` command: 0 and PRINT_ENV's line
# when the server answers PROBE, 1 when its process is alive but does not answer, 3 when stopped.
server_status() {
  local name=$1 pidfile=$2 pattern=$3 probe_fn=$4 print_fn=$5 pid
  if pid="$(pid_alive "$pidfile" "$pattern")"; then
    if "$probe_fn" 5000; then
      log "running (pid $pid), $name, ready"
      "$print_fn"
      return 0
    fi
    log "running (pid $pid) but not ready"
    return 1
  fi
  log "stopped"
  return 3
}
