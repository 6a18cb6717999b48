# shellcheck shell=bash disable=SC2034
# PostgreSQL for the test bed: its own cluster, TCP on 127.0.0.1 only,
# password (scram-sha-256) auth for TCP, role/database outbox.

PG_DEFAULT_PORT=5432
PG_MAX_CONNECTIONS=300
PG_BIN=

# The cluster directory without creating it (for status/env/down).
postgres_dir() {
  local dir="$TESTBED_HOME/postgres"
  if [[ -L $dir ]]; then readlink -f -- "$dir"; else printf '%s\n' "$dir"; fi
}

# postgres_find_bindir: directory holding initdb and pg_ctl, newest version first.
postgres_find_bindir() {
  local ctl dir
  if ctl="$(command -v pg_ctl)" && command -v initdb >/dev/null; then
    dir="$(dirname -- "$(readlink -f -- "$ctl")")"
    if [[ -x $dir/initdb ]]; then
      printf '%s\n' "$dir"
      return 0
    fi
  fi
  while read -r dir; do
    if [[ -x $dir/initdb && -x $dir/pg_ctl ]]; then
      printf '%s\n' "$dir"
      return 0
    fi
  done < <(compgen -G '/usr/lib/postgresql/*/bin' | sort -V -r)
  return 1
}

postgres_psql_bin() {
  if [[ -n $PG_BIN && -x $PG_BIN/psql ]]; then
    printf '%s\n' "$PG_BIN/psql"
  elif command -v psql >/dev/null; then
    command -v psql
  else
    local dir
    dir="$(postgres_find_bindir)" && [[ -x $dir/psql ]] && printf '%s\n' "$dir/psql"
  fi
}

postgres_install() {
  if ! PG_BIN="$(postgres_find_bindir)"; then
    apt_install postgresql
    PG_BIN="$(postgres_find_bindir)" ||
      die "initdb/pg_ctl not found after installing postgresql"
  fi
  if ! postgres_psql_bin >/dev/null; then
    apt_install postgresql-client
  fi
  if is_root; then
    ensure_system_user postgres /var/lib/postgresql
  fi
}

postgres_pid() {
  local dir pid
  dir="$(postgres_dir)"
  pid="$(read_pid "$dir/data/postmaster.pid")"
  if pid_matches "$pid" "$dir/data"; then printf '%s\n' "$pid"; fi
}

postgres_healthy() {
  local psql out
  psql="$(postgres_psql_bin)" || return 1
  out="$(PGPASSWORD=$DB_PASSWORD PGCONNECT_TIMEOUT=3 timeout 10 "$psql" -X -w -q -t -A \
    -h "$LOOPBACK" -p "$1" -U "$DB_USER" -d "$DB_NAME" -c 'select 1' 2>/dev/null)" &&
    [[ $out == 1 ]]
}

# postgres_init_cluster DIR USER
postgres_init_cluster() {
  local dir=$1 user=$2 log="$LOG_DIR/postgres-setup.log"
  if [[ ! -s $dir/data/PG_VERSION ]]; then
    info "initialising a PostgreSQL cluster in $dir/data"
    as_user "$user" "$PG_BIN/initdb" -D "$dir/data" -U postgres -E UTF8 --no-locale \
      --auth-local=trust --auth-host=scram-sha-256 >>"$log" 2>&1 ||
      die_with_log "$log" "initdb failed"
  fi
  # Settings live in an included file so they can be rewritten on each start.
  if ! grep -qF "include_if_exists = 'outbox-testbed.conf'" "$dir/data/postgresql.conf"; then
    printf "\n# test bed settings (scripts/local-aws)\ninclude_if_exists = 'outbox-testbed.conf'\n" \
      >>"$dir/data/postgresql.conf"
  fi
  cat >"$dir/data/outbox-testbed.conf" <<EOF
# written by scripts/local-aws on every start
listen_addresses = '$LOOPBACK'
unix_socket_directories = '$dir/run'
max_connections = $PG_MAX_CONNECTIONS
password_encryption = 'scram-sha-256'
EOF
  # The unix socket (in a directory only the server user can enter) is for
  # setting up roles; TCP always needs the password.
  cat >"$dir/data/pg_hba.conf" <<EOF
# written by scripts/local-aws
# TYPE  DATABASE  USER  ADDRESS        METHOD
local   all       all                  trust
host    all       all   127.0.0.1/32   scram-sha-256
EOF
  [[ $user == "$(id -un)" ]] ||
    chown "$user:" "$dir/data/outbox-testbed.conf" "$dir/data/pg_hba.conf" "$dir/data/postgresql.conf"
  if [[ ! -d $dir/run ]]; then
    as_user "$user" mkdir -m 700 "$dir/run"
  fi
}

postgres_start() {
  local port=$1 user dir log="$LOG_DIR/postgres-setup.log"
  user="$(service_user postgres)"
  dir="$(service_dir postgres "$user")"
  postgres_init_cluster "$dir" "$user"
  ln -sfn -- "$dir/postgres.log" "$LOG_DIR/postgres.log"
  # Retried: after a crash the killed server's children may still hold its
  # shared memory for a moment ("lock file postmaster.pid already exists").
  local attempt
  for attempt in 1 2 3; do
    if as_user "$user" setsid "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" \
      -w -t 60 -o "-p $port" start >>"$log" 2>&1 9>&-; then
      break
    fi
    if ((attempt == 3)); then
      tail -n 20 -- "$dir/postgres.log" >>"$log" 2>/dev/null || true
      die_with_log "$log" "PostgreSQL did not start on port $port"
    fi
    warn "PostgreSQL did not start on port $port; retrying in 3 s"
    sleep 3
  done
  postgres_setup_roles "$user" "$dir" "$port"
  wait_for 30 postgres_healthy "$port" ||
    die_with_log "$log" "PostgreSQL started but does not accept $DB_USER/$DB_PASSWORD on port $port"
}

# postgres_setup_roles USER DIR PORT: the outbox role and database (idempotent),
# over the unix socket as the server's user. The role may create roles
# (CREATEROLE): tests log in as users holding exactly the grants OutboxGrants
# makes, which the tables' owner gives them.
postgres_setup_roles() {
  local user=$1 dir=$2 port=$3 log="$LOG_DIR/postgres-setup.log"
  as_user "$user" "$(postgres_psql_bin)" -X -q -v ON_ERROR_STOP=1 -h "$dir/run" -p "$port" \
    -U postgres -d postgres >>"$log" 2>&1 <<EOF || die_with_log "$log" "could not create the outbox role/database"
SELECT 'CREATE ROLE $DB_USER' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$DB_USER')\gexec
ALTER ROLE $DB_USER WITH LOGIN CREATEDB CREATEROLE PASSWORD '$DB_PASSWORD';
SELECT 'CREATE DATABASE $DB_NAME OWNER $DB_USER' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$DB_NAME')\gexec
ALTER DATABASE $DB_NAME OWNER TO $DB_USER;
EOF
}

# postgres_refresh PORT: a running test bed server brought up to the role
# setup of this version of the script.
postgres_refresh() {
  local user dir
  [[ -n $PG_BIN ]] || PG_BIN="$(postgres_find_bindir)" || return 0
  dir="$(postgres_dir)"
  user="$(stat -c %U -- "$dir/data")"
  postgres_setup_roles "$user" "$dir" "$1"
}

postgres_stop() {
  local dir user
  dir="$(postgres_dir)"
  user="$(stat -c %U -- "$dir/data")"
  [[ -n $PG_BIN ]] || PG_BIN="$(postgres_find_bindir)" || true
  if [[ -z $PG_BIN ]] || ! as_user "$user" "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop \
    >>"$LOG_DIR/postgres-setup.log" 2>&1; then
    stop_pid "$(postgres_pid)" PostgreSQL
  fi
}

# postgres_serve PORT DIR: a private cluster in DIR (created on first use),
# PostgreSQL in the foreground on 127.0.0.1:PORT, TCP only (no unix socket),
# role/password/database outbox/outbox/outbox. It stops at SIGINT (fast
# shutdown: open transactions are rolled back, as `pg_ctl stop -m fast` does);
# SIGTERM waits for clients to disconnect. fsync is off: the data survives the
# server's processes being killed, not the machine crashing.
postgres_serve() {
  local port=$1 dir=$2 user data pwfile
  PG_BIN="$(postgres_find_bindir)" || die "PostgreSQL is not installed; run scripts/local-aws up"
  user="$(service_user postgres)"
  data="$(private_data_dir "$dir" "$user")"
  if [[ ! -s $data/PG_VERSION ]]; then
    pwfile="$data.pw"
    printf '%s\n' "$DB_PASSWORD" >"$pwfile"
    [[ $user == "$(id -un)" ]] || chown "$user:" "$pwfile"
    as_user "$user" "$PG_BIN/initdb" -D "$data" -U "$DB_USER" --pwfile="$pwfile" -E UTF8 --no-sync \
      --no-locale --auth=scram-sha-256 >&2 || die "initdb into $data failed"
    rm -f -- "$pwfile"
    printf 'CREATE DATABASE %s;\n' "$DB_NAME" |
      as_user "$user" "$PG_BIN/postgres" --single -D "$data" -c fsync=off -j postgres >/dev/null ||
      die "could not create the database $DB_NAME in $data"
  fi
  exec_as "$user" "$PG_BIN/postgres" -D "$data" -p "$port" \
    -c listen_addresses="$LOOPBACK" -c unix_socket_directories= \
    -c max_connections=50 -c shared_buffers=32MB -c fsync=off -c full_page_writes=off
}
