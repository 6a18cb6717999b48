# shellcheck shell=bash disable=SC2034
# Shared helpers for scripts/local-aws: state layout, logging, package
# installs, ports, pid files and detached processes.

TESTBED_HOME="${OUTBOX_TESTBED_HOME:-$HOME/.cache/outbox-testbed}"
TESTBED_HOME="$(realpath -m -- "$TESTBED_HOME")"
LOG_DIR="$TESTBED_HOME/logs"
RUN_DIR="$TESTBED_HOME/run"
UP_MARKER="$RUN_DIR/up"

# Services only ever listen on, and are only ever probed at, this address.
LOOPBACK=127.0.0.1

# Credentials shared by PostgreSQL, MariaDB and the Data API emulator.
DB_NAME=outbox
DB_USER=outbox
DB_PASSWORD=outbox

info() { printf '%s\n' "$*"; }
warn() { printf 'local-aws: %s\n' "$*" >&2; }
die() {
  warn "error: $*"
  exit 1
}

# die_with_log LOGFILE MESSAGE: fail and show the end of the log that explains why.
die_with_log() {
  local log=$1
  shift
  warn "error: $*"
  if [[ -f $log ]]; then
    warn "last lines of $log:"
    tail -n 40 -- "$log" | sed 's/^/    /' >&2
  fi
  exit 1
}

is_root() { [[ $EUID -eq 0 ]]; }

init_state_dirs() {
  mkdir -p -- "$TESTBED_HOME" "$LOG_DIR" "$RUN_DIR"
}

# One `up` or `down` at a time per test bed (several clones may share it).
lock_testbed() {
  exec 9>"$TESTBED_HOME/.lock"
  flock -n 9 && return 0
  info "waiting for another scripts/local-aws to finish with $TESTBED_HOME"
  if ! flock -w 900 9; then
    die "another scripts/local-aws is still running on $TESTBED_HOME"
  fi
}

# ---------------------------------------------------------------------------
# Package installs
# ---------------------------------------------------------------------------

APT_UPDATED=0

# apt_install PKG...: install Debian packages without letting their maintainer
# scripts start system services (the test bed runs its own instances).
apt_install() {
  local log="$LOG_DIR/apt.log" sudo=() policy=/usr/sbin/policy-rc.d created_policy=0 rc=0
  if ! is_root; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      die "missing packages: $*; install them (apt-get install $*) or run as root"
    fi
  fi
  info "installing Debian packages: $* (log: $log)"
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\n# services are not started during installs (scripts/local-aws)\nexit 101\n' |
      "${sudo[@]}" tee "$policy" >/dev/null
    "${sudo[@]}" chmod 755 "$policy"
    created_policy=1
  fi
  {
    if ((APT_UPDATED == 0)); then
      "${sudo[@]}" apt-get update -q && APT_UPDATED=1
    fi &&
      "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "$@"
  } >>"$log" 2>&1 9>&- || rc=$?
  if ((created_policy)); then
    "${sudo[@]}" rm -f "$policy"
  fi
  ((rc == 0)) || die_with_log "$log" "apt-get install $* failed"
}

# need_command CMD PACKAGE: install PACKAGE when CMD is not on the PATH.
need_command() {
  command -v "$1" >/dev/null || apt_install "$2"
  command -v "$1" >/dev/null || die "$1 still missing after installing $2"
}

# ensure_system_user NAME HOME: create a system account when a package did not.
ensure_system_user() {
  local user=$1 home=$2
  id -u "$user" >/dev/null 2>&1 && return 0
  is_root || die "system user $user is missing; create it or run as root"
  useradd --system --user-group --home-dir "$home" --no-create-home \
    --shell /usr/sbin/nologin "$user"
}

# testbed_python WHO: prints a Python 3.12 or newer with venv, the one the test
# bed's Python tools run on (LocalStack's runtime needs it; checkov is
# installed with it too, so that the test bed has one Python). Looks at
# OUTBOX_TESTBED_PYTHON, then python3.N and python3 on the PATH, then pyenv's
# installed versions (pyenv's shims answer only for the versions it has
# selected, so its versions folder is searched directly). Fails naming WHO
# and what to install.
testbed_python() {
  local who=$1
  local candidate found=() pyenv_root="${PYENV_ROOT:-$HOME/.pyenv}"
  local check='import sys, venv; sys.exit(sys.version_info < (3, 12))'
  if [[ -n ${OUTBOX_TESTBED_PYTHON:-} ]]; then
    "$OUTBOX_TESTBED_PYTHON" -c "$check" >/dev/null 2>&1 ||
      die "OUTBOX_TESTBED_PYTHON=$OUTBOX_TESTBED_PYTHON is not a Python 3.12 or newer with venv"
    "$OUTBOX_TESTBED_PYTHON" -c 'import sys; print(sys.executable)'
    return 0
  fi
  found+=(python3.14 python3.13 python3.12 python3)
  if [[ -d $pyenv_root/versions ]]; then
    while IFS= read -r candidate; do
      found+=("$candidate/bin/python3")
    done < <(find "$pyenv_root/versions" -mindepth 1 -maxdepth 1 -name '3.*' | sort -V -r)
  fi
  for candidate in "${found[@]}"; do
    if "$candidate" -c "$check" >/dev/null 2>&1; then
      "$candidate" -c 'import sys; print(sys.executable)'
      return 0
    fi
  done
  die "$who needs Python 3.12 or newer, and none was found" \
    "(python3 is $(python3 -V 2>&1 || echo missing); looked on the PATH and in $pyenv_root/versions)." \
    "Install one, e.g. \`pyenv install 3.12\`, or \`apt-get install python3.12 python3.12-venv\`" \
    "where the distribution has it (Ubuntu 24.04, Debian 13), or set OUTBOX_TESTBED_PYTHON to one."
}


# ---------------------------------------------------------------------------
# Service directories
# ---------------------------------------------------------------------------

# service_user USER: the account a database server runs as. PostgreSQL and
# MariaDB refuse to run as root, so root hands them to their system users; any
# other invoking user runs them as itself.
service_user() {
  if is_root; then printf '%s\n' "$1"; else id -un; fi
}

# as_user USER CMD...: run CMD as USER (from a directory USER can enter).
as_user() {
  local user=$1
  shift
  if [[ $user == "$(id -un)" ]]; then
    "$@"
  else
    (cd / && runuser -u "$user" -- "$@")
  fi
}

# service_dir NAME USER: prints the directory holding NAME's data and logs,
# creating it owned by USER. It is $TESTBED_HOME/NAME unless USER cannot reach
# $TESTBED_HOME (e.g. root's home is mode 700): then the data lives in
# /var/lib/outbox-testbed/<hash of $TESTBED_HOME>/NAME and $TESTBED_HOME/NAME
# is a symlink to it.
service_dir() {
  local name=$1 user=$2 dir="$TESTBED_HOME/$1" alt
  if [[ -L $dir ]]; then
    dir="$(readlink -f -- "$dir")"
  elif [[ ! -d $dir ]] && [[ $user != "$(id -un)" ]] &&
    ! as_user "$user" test -x "$TESTBED_HOME"; then
    alt="/var/lib/outbox-testbed/$(printf '%s' "$TESTBED_HOME" | sha256sum | cut -c1-12)"
    mkdir -p -- "$alt"
    chmod 755 /var/lib/outbox-testbed "$alt"
    ln -sfn -- "$alt/$name" "$TESTBED_HOME/$name"
    printf '%s\n' "$TESTBED_HOME" >"$alt/testbed-home"
    dir="$alt/$name"
  fi
  if [[ ! -d $dir ]]; then
    mkdir -p -- "$dir"
    chmod 700 "$dir"
    [[ $user == "$(id -un)" ]] || chown "$user:" "$dir"
  fi
  printf '%s\n' "$dir"
}

# ---------------------------------------------------------------------------
# Private servers (scripts/local-aws serve-*): one throwaway instance in a
# directory the caller owns, in the foreground, for tests that stop, restart
# or kill a server without touching the shared test bed.
# ---------------------------------------------------------------------------

# private_data_dir DIR USER: prints the directory for the server's data,
# DIR/data, owned by USER. When USER cannot enter DIR (root's home is mode
# 700) the data lives in a fresh directory under /tmp and DIR/data is a
# symlink to it: whoever removes DIR must remove the link's target as well.
private_data_dir() {
  local dir=$1 user=$2 data="$1/data"
  [[ -d $dir ]] || die "$dir does not exist; the caller creates the private server's directory"
  if [[ -L $data ]]; then
    readlink -f -- "$data"
    return 0
  fi
  if [[ ! -d $data ]]; then
    if [[ $user == "$(id -un)" ]] || as_user "$user" test -x "$dir"; then
      mkdir -m 700 -- "$data"
    else
      ln -s -- "$(mktemp -d /tmp/outbox-private-XXXXXXXX)" "$data"
      chmod 755 -- "$(readlink -f -- "$data")"
      data="$(readlink -f -- "$data")"
    fi
    [[ $user == "$(id -un)" ]] || chown "$user:" "$data"
  fi
  printf '%s\n' "$data"
}

# exec_as USER CMD...: replace this shell by CMD running as USER, so the
# caller's process is the server itself (signals reach it, its pid is the
# server's).
exec_as() {
  local user=$1
  shift
  cd /
  if [[ $user == "$(id -un)" ]]; then
    exec "$@"
  fi
  exec setpriv --reuid="$user" --regid="$user" --init-groups -- "$@"
}

# ---------------------------------------------------------------------------
# Ports, pids and detached processes
# ---------------------------------------------------------------------------

port_get() { cat -- "$RUN_DIR/$1.port" 2>/dev/null || true; }
port_set() { printf '%s\n' "$2" >"$RUN_DIR/$1.port"; }

# A service found answering with our credentials but not started by us.
external_set() { : >"$RUN_DIR/$1.external"; }
external_clear() { rm -f -- "$RUN_DIR/$1.external"; }
is_external() { [[ -e $RUN_DIR/$1.external ]]; }

# port_open PORT: something accepts TCP connections on 127.0.0.1:PORT.
port_open() {
  # shellcheck disable=SC2016 # expanded by the inner bash
  timeout 3 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$LOOPBACK" "$1" 2>/dev/null
}

# free_port_from PORT: the first port >= PORT nothing listens on.
free_port_from() {
  local port=$1 last=$(($1 + 200))
  while ((port <= last)); do
    if ! port_open "$port"; then
      printf '%s\n' "$port"
      return 0
    fi
    port=$((port + 1))
  done
  die "no free port between $1 and $last"
}

pid_alive() { [[ -n ${1:-} ]] && kill -0 "$1" 2>/dev/null; }

# pid_matches PID TEXT: PID is alive and its command line contains TEXT
# (guards against stale pid files whose pid now belongs to something else).
pid_matches() {
  local cmdline
  pid_alive "$1" && cmdline="$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)" &&
    [[ $cmdline == *"$2"* ]]
}

# read_pid FILE: first line of a pid file, or nothing.
read_pid() { head -n 1 -- "$1" 2>/dev/null | tr -dc '0-9' || true; }

# service_pid SVC TEXT: the pid in $RUN_DIR/SVC.pid if that process is alive
# and its command line contains TEXT; nothing otherwise.
service_pid() {
  local pid
  pid="$(read_pid "$RUN_DIR/$1.pid")"
  if pid_matches "$pid" "$2"; then printf '%s\n' "$pid"; fi
}

# stop_pid PID NAME: SIGTERM, wait up to 60 s, then SIGKILL.
stop_pid() {
  local pid=$1 name=$2 i
  pid_alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 600; i++)); do
    pid_alive "$pid" || return 0
    sleep 0.1
  done
  warn "$name (pid $pid) did not stop within 60 s; killing it"
  kill -KILL "$pid" 2>/dev/null || true
}

# start_detached LOG CMD...: start CMD in its own session, immune to the
# caller's shell ending, output appended to LOG; prints its pid. The
# test bed's lock (fd 9) is not handed down to the long-lived process.
start_detached() {
  local log=$1
  shift
  setsid nohup "$@" >>"$log" 2>&1 </dev/null 9>&- &
  printf '%s\n' "$!"
}

# wait_for SECONDS CMD...: retry CMD until it succeeds or time runs out.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.3
  done
}

# ---------------------------------------------------------------------------
# Generic service life cycle. A service SVC provides:
#   SVC_install           install binaries when missing (quiet when present)
#   SVC_pid               pid of the instance this test bed started, if alive
#   SVC_healthy PORT      it answers on PORT with our credentials
#   SVC_start PORT        start it on PORT (and wait until it is healthy)
#   SVC_stop              stop the instance this test bed started
#   SVC_stale             (optional) running instance must be restarted
#   SVC_refresh PORT      (optional) bring a running instance up to this setup
# ---------------------------------------------------------------------------

# ensure_service SVC "Display name" DEFAULT_PORT
ensure_service() {
  local svc=$1 name=$2 default_port=$3 port pid
  port="$(port_get "$svc")"
  pid="$("${svc}_pid")"
  if [[ -n $pid && -n $port ]]; then
    if declare -F "${svc}_stale" >/dev/null && "${svc}_stale"; then
      info "restarting $name (pid $pid): its configuration changed"
      "${svc}_stop"
    elif wait_for 15 "${svc}_healthy" "$port"; then
      info "reusing $name on $LOOPBACK:$port (pid $pid)"
      # A server started by an earlier version of this script gets this one's setup.
      if declare -F "${svc}_refresh" >/dev/null; then "${svc}_refresh" "$port"; fi
      return 0
    else
      warn "$name (pid $pid) does not answer on port $port; restarting it"
      "${svc}_stop"
    fi
  elif [[ -n $port ]] && is_external "$svc" && "${svc}_healthy" "$port"; then
    info "reusing $name already running on $LOOPBACK:$port (not started by this test bed)"
    return 0
  fi

  external_clear "$svc"
  port=$default_port
  # Another test bed's (or a hand-started) instance that takes our
  # credentials is as good as our own; checked again after installing, in
  # case the client the check needs was missing.
  if port_open "$port" && "${svc}_healthy" "$port"; then
    reuse_external "$svc" "$name" "$port"
    return 0
  fi
  "${svc}_install"
  if port_open "$port"; then
    if "${svc}_healthy" "$port"; then
      reuse_external "$svc" "$name" "$port"
      return 0
    fi
    port="$(free_port_from $((default_port + 1)))"
    "${svc}_start" "$port"
    info "port $default_port is taken by another process; $name started on $port (pid $("${svc}_pid"))"
  else
    "${svc}_start" "$port"
    info "$name started on $LOOPBACK:$port (pid $("${svc}_pid"))"
  fi
  port_set "$svc" "$port"
}

reuse_external() {
  port_set "$1" "$3"
  external_set "$1"
  info "reusing $2 already running on $LOOPBACK:$3 (accepts the outbox credentials; not started by this test bed)"
}

# stop_service SVC "Display name"
stop_service() {
  local svc=$1 name=$2 pid
  pid="$("${svc}_pid")"
  if [[ -n $pid ]]; then
    "${svc}_stop"
    info "stopped $name (pid $pid)"
  elif is_external "$svc"; then
    info "$name on port $(port_get "$svc") was not started by this test bed; leaving it running"
    external_clear "$svc"
  else
    info "$name is not running"
  fi
}

# status_line SVC "Display name"
status_line() {
  local svc=$1 name=$2 port pid state
  port="$(port_get "$svc")"
  pid="$("${svc}_pid")"
  if [[ -n $pid ]]; then
    state=running
  elif [[ -n $port ]] && is_external "$svc" && "${svc}_healthy" "$port"; then
    state="running (external)"
    pid=-
  else
    state=stopped
    pid=-
  fi
  printf '%-12s port %-6s %-19s pid %s\n' "$name" "${port:--}" "$state" "$pid"
}
