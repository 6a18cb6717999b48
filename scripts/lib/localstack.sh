# shellcheck shell=bash disable=SC2034
# LocalStack's runtime (localstack-core from PyPI) on the host, without Docker
# and without an auth token: SNS, SQS, Secrets Manager, EventBridge and S3 on one port,
# 127.0.0.1 only. State is in memory only.
#
# What it needs here, each found by a failure:
# - Python 3.12 or newer (the runtime uses PEP 695 generics; on 3.11 its
#   plugins fail to load). Debian 12's python3 is 3.11: testbed_python
#   (lib/common.sh) looks on the PATH, then in pyenv's versions, and names what
#   to install.
# - the pins in localstack-requirements.txt (cbor2 < 6, pyOpenSSL 25.3.0 with
#   its cryptography and service-identity; the reasons are in that file).
# - OVERRIDE_IN_DOCKER=0: without it the runtime sees /.dockerenv and writes
#   to /var/lib/localstack and /etc/localstack.
# - localstack_loopback.py: the gateway ignores the host of GATEWAY_LISTEN and
#   listens on 0.0.0.0; the launcher forces every bind onto loopback, and
#   localstack_start refuses to go on if anything still listens elsewhere.
# - No calls out: SKIP_SSL_CERT_DOWNLOAD=1 (it would fetch a certificate),
#   DISABLE_EVENTS=1 (analytics), DNS_ADDRESS=0 (no DNS server).
#
# Where it differs from moto (the test bed's previous SNS/SQS endpoint):
# - the account id is 000000000000 (moto: 123456789012); queue URLs are
#   http://127.0.0.1:PORT/000000000000/NAME, the shape of a real queue URL
#   (SQS_ENDPOINT_STRATEGY=off; "path" would add /queue/REGION, which the
#   outbox rightly refuses as a destination).
# - about 440 SNS->SQS messages/s, flat as a queue fills (moto slows down in
#   proportion to a queue's depth), and it answers after about 6-10 s.
# - the whole suite (./mvnw -B verify, same code, back to back on a machine
#   busy with other builds) took 255 s against moto and 200 s against it.

LOCALSTACK_VERSION=2026.3.0
LOCALSTACK_DEFAULT_PORT=4566
LOCALSTACK_DIR="$TESTBED_HOME/localstack"
LOCALSTACK_VENV="$LOCALSTACK_DIR/venv"
LOCALSTACK_REQUIREMENTS="$LIB_DIR/localstack-requirements.txt"
# The launcher is copied into the state folder, so that the running service
# depends on no clone's files and every clone recognises it by its path.
LOCALSTACK_MAIN="$LOCALSTACK_DIR/loopback_main.py"
LOCALSTACK_SERVICES=sns,sqs,secretsmanager,events,s3

# localstack_python: prints a Python 3.12+ interpreter (testbed_python), or
# fails naming what to install.
localstack_python() { testbed_python "LocalStack's runtime"; }

# What an install is made of: the interpreter's version and the pins.
localstack_install_id() {
  printf '%s\n' "$1" "$("$1" -V 2>&1)"
  cat -- "$LOCALSTACK_REQUIREMENTS"
}

localstack_install() {
  local log="$LOG_DIR/pip.log" stamp="$LOCALSTACK_VENV/.installed" python wanted
  if [[ -f $stamp ]] && "$LOCALSTACK_VENV/bin/python" -c 'import localstack' 2>/dev/null &&
    [[ "$(localstack_install_id "$(head -n 1 -- "$stamp")")" == "$(cat -- "$stamp")" ]]; then
    return 0
  fi
  need_command curl curl
  python="$(localstack_python)" || exit 1
  wanted="$(localstack_install_id "$python")"
  info "installing localstack-core==$LOCALSTACK_VERSION with $python into $LOCALSTACK_VENV" \
    "(about 500 MB, a minute or two; log: $log)"
  rm -rf -- "$LOCALSTACK_VENV"
  mkdir -p -- "$LOCALSTACK_DIR"
  if ! "$python" -m venv "$LOCALSTACK_VENV" >>"$log" 2>&1; then
    # Debian's and Ubuntu's pythons create venvs only with python3.N-venv.
    rm -rf -- "$LOCALSTACK_VENV"
    apt_install "python$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')-venv"
    "$python" -m venv "$LOCALSTACK_VENV" >>"$log" 2>&1 ||
      die_with_log "$log" "could not create $LOCALSTACK_VENV with $python"
  fi
  "$LOCALSTACK_VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r "$LOCALSTACK_REQUIREMENTS" >>"$log" 2>&1 ||
    die_with_log "$log" "pip install -r $LOCALSTACK_REQUIREMENTS failed"
  printf '%s\n' "$wanted" >"$stamp"
}

localstack_pid() { service_pid localstack "$LOCALSTACK_MAIN"; }

# localstack_healthy PORT [SERVICES]: LocalStack answers on PORT with
# SERVICES (comma-separated; default SNS, SQS, Secrets Manager, EventBridge and S3) running.
localstack_healthy() {
  local health svc services=${2:-$LOCALSTACK_SERVICES}
  health="$(curl -sf --max-time 5 "http://$LOOPBACK:$1/_localstack/health" 2>/dev/null)" || return 1
  for svc in ${services//,/ }; do
    grep -Eq "\"$svc\": *\"(running|available)\"" <<<"$health" || return 1
  done
}

# localstack_settings PORT SERVICES DIR: the environment LocalStack runs
# with, serving SERVICES with its files in DIR, one VAR=value a line (values
# without spaces).
localstack_settings() {
  local port=$1 services=$2 dir=$3
  cat <<EOF
OVERRIDE_IN_DOCKER=0
GATEWAY_LISTEN=$LOOPBACK:$port
LOCALSTACK_HOST=$LOOPBACK:$port
SERVICES=$services
EAGER_SERVICE_LOADING=1
SQS_ENDPOINT_STRATEGY=off
DISABLE_EVENTS=1
SKIP_SSL_CERT_DOWNLOAD=1
DNS_ADDRESS=0
LS_LOG=warn
FILESYSTEM_ROOT=$dir/filesystem
XDG_CACHE_HOME=$dir/cache
EOF
}

# An instance started with other settings or of another version (by an older
# clone) is restarted with this clone's.
localstack_stale() {
  local port
  port="$(port_get localstack)"
  [[ "$(cat -- "$RUN_DIR/localstack.settings" 2>/dev/null)" != \
    "$(localstack_settings "$port" "$LOCALSTACK_SERVICES" "$LOCALSTACK_DIR"
      echo "version $LOCALSTACK_VERSION")" ]]
}

# localstack_wildcard_listeners PID...: the listening TCP and bound UDP
# sockets of the PIDs that are not on loopback, as `ss` shows them.
localstack_wildcard_listeners() {
  local pids
  pids="$(printf '%s\n' "$@" | paste -sd'|')"
  ss -ltunpH 2>/dev/null | grep -E "pid=($pids)," | awk '{print $5}' |
    grep -vE '^(127\.[0-9.]+|\[::1\]):[0-9]+$' || true
}

localstack_start() {
  local port=$1 pid log="$LOG_DIR/localstack.log" deadline=$((SECONDS + 120)) outside settings
  need_command ss iproute2
  install -m 644 -- "$LIB_DIR/localstack_loopback.py" "$LOCALSTACK_MAIN"
  mkdir -p -- "$LOCALSTACK_DIR/filesystem" "$LOCALSTACK_DIR/cache"
  printf '\n=== %s starting LocalStack %s on %s:%s\n' "$(date -u +%FT%TZ)" \
    "$LOCALSTACK_VERSION" "$LOOPBACK" "$port" >>"$log"
  # A clean environment: the caller's AWS_* or LocalStack settings must not leak in.
  mapfile -t settings < <(localstack_settings "$port" "$LOCALSTACK_SERVICES" "$LOCALSTACK_DIR")
  pid="$(start_detached "$log" env -i PATH="$PATH" HOME="$HOME" LANG=C.UTF-8 "${settings[@]}" \
    "$LOCALSTACK_VENV/bin/python" "$LOCALSTACK_MAIN")"
  { printf '%s\n' "${settings[@]}"; echo "version $LOCALSTACK_VERSION"; } >"$RUN_DIR/localstack.settings"
  printf '%s\n' "$pid" >"$RUN_DIR/localstack.pid"
  until localstack_healthy "$port"; do
    pid_alive "$pid" || die_with_log "$log" "LocalStack exited before it answered on port $port"
    if ((SECONDS >= deadline)); then
      localstack_stop
      die_with_log "$log" "LocalStack did not answer on port $port within 120 s; stopped it"
    fi
    sleep 0.5
  done
  # shellcheck disable=SC2046 # one pid a word: the session start_detached made
  outside="$(localstack_wildcard_listeners $(pgrep -s "$pid"))"
  if [[ -n $outside ]]; then
    localstack_stop
    die_with_log "$log" "LocalStack listened beyond loopback ($(paste -sd' ' <<<"$outside")); stopped it"
  fi
}

localstack_stop() {
  stop_pid "$(localstack_pid)" LocalStack
  rm -f -- "$RUN_DIR/localstack.pid"
}

# localstack_serve PORT DIR: a private LocalStack (SNS and SQS) in the
# foreground on 127.0.0.1:PORT, its files in DIR/data. State is in memory
# only: a restarted one has no topics or queues until they are created again
# (with the same names they get the same ARNs and URLs). It answers after
# several seconds (its health endpoint says when) and takes about 0.5 GB.
# SIGTERM stops it. A guard in the background checks, once it answers, that
# it listens on loopback only, and kills it otherwise.
localstack_serve() {
  local port=$1 dir=$2 data settings services=sns,sqs
  [[ -f $LOCALSTACK_VENV/.installed && -x $LOCALSTACK_VENV/bin/python ]] ||
    die "LocalStack's runtime is not installed in $LOCALSTACK_VENV; run scripts/local-aws up"
  command -v ss >/dev/null || die "ss (iproute2) is missing; run scripts/local-aws up"
  command -v curl >/dev/null || die "curl is missing; run scripts/local-aws up"
  data="$(private_data_dir "$dir" "$(id -un)")"
  mkdir -p -- "$data/filesystem" "$data/cache"
  mapfile -t settings < <(localstack_settings "$port" "$services" "$data")
  # In a subshell of its own, so that it is nobody's child to reap.
  (localstack_guard $$ "$port" "$services" &)
  cd /
  # A clean environment, as for the test bed's.
  exec env -i PATH="$PATH" HOME="$HOME" LANG=C.UTF-8 "${settings[@]}" \
    "$LOCALSTACK_VENV/bin/python" "$LIB_DIR/localstack_loopback.py"
}

# localstack_guard PID PORT SERVICES: once LocalStack (PID) answers on PORT,
# SIGKILL to it if it listens beyond loopback; gone when PID is.
localstack_guard() {
  local pid=$1 port=$2 services=$3 outside
  until localstack_healthy "$port" "$services"; do
    pid_alive "$pid" || return 0
    sleep 0.5
  done
  outside="$(localstack_wildcard_listeners "$pid")"
  if [[ -n $outside ]]; then
    warn "error: LocalStack listened beyond loopback ($(paste -sd' ' <<<"$outside")); killed it"
    kill -KILL "$pid"
  fi
}
