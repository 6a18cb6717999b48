# shellcheck shell=bash disable=SC2034
# moto in server mode: SNS, SQS and Secrets Manager (and every other service
# moto mocks) on one port, 127.0.0.1 only. State is in memory only.

MOTO_VERSION=5.2.5
MOTO_DEFAULT_PORT=4566
MOTO_VENV="$TESTBED_HOME/moto/venv"

moto_install() {
  local log="$LOG_DIR/pip.log" stamp="$MOTO_VENV/.moto-$MOTO_VERSION"
  if [[ -f $stamp ]] && "$MOTO_VENV/bin/python" -c 'import moto' 2>/dev/null; then
    return 0
  fi
  need_command python3 python3
  need_command curl curl
  info "installing moto[server]==$MOTO_VERSION into $MOTO_VENV (log: $log)"
  rm -rf -- "$MOTO_VENV"
  mkdir -p -- "$(dirname -- "$MOTO_VENV")"
  if ! python3 -m venv "$MOTO_VENV" >>"$log" 2>&1; then
    # Debian's python3 creates venvs only with python3-venv installed.
    rm -rf -- "$MOTO_VENV"
    apt_install python3-venv
    python3 -m venv "$MOTO_VENV" >>"$log" 2>&1 || die_with_log "$log" "could not create $MOTO_VENV"
  fi
  "$MOTO_VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    "moto[server]==$MOTO_VERSION" >>"$log" 2>&1 ||
    die_with_log "$log" "pip install moto[server]==$MOTO_VERSION failed"
  touch -- "$stamp"
}

moto_pid() {
  local pid
  pid="$(read_pid "$RUN_DIR/moto.pid")"
  if pid_matches "$pid" "$MOTO_VENV/bin/moto_server"; then printf '%s\n' "$pid"; fi
}

# moto answers its own management API with its dashboard page.
moto_healthy() {
  local page
  page="$(curl -sf --max-time 5 "http://$LOOPBACK:$1/moto-api/" 2>/dev/null)" &&
    [[ $page == *[Mm]oto* ]]
}

moto_start() {
  local port=$1 pid log="$LOG_DIR/moto.log"
  pid="$(start_detached "$log" "$MOTO_VENV/bin/moto_server" -H "$LOOPBACK" -p "$port")"
  printf '%s\n' "$pid" >"$RUN_DIR/moto.pid"
  wait_for 60 moto_healthy "$port" || die_with_log "$log" "moto did not start on port $port"
}

moto_stop() {
  stop_pid "$(moto_pid)" moto
  rm -f -- "$RUN_DIR/moto.pid"
}

# moto_serve PORT DIR: a private moto in the foreground on 127.0.0.1:PORT. Its
# state is in memory only (DIR is not used): a restarted moto has no topics or
# queues until they are created again.
moto_serve() {
  local port=$1
  [[ -x $MOTO_VENV/bin/moto_server ]] ||
    die "moto is not installed in $MOTO_VENV; run scripts/local-aws up"
  cd /
  exec "$MOTO_VENV/bin/moto_server" -H "$LOOPBACK" -p "$port"
}
