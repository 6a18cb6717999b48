# shellcheck shell=bash disable=SC2034
# MariaDB 10.11 (Debian bookworm's mariadb-server), standing in for Aurora
# MySQL 3: its own datadir, TCP on 127.0.0.1 only, user/database outbox.

MARIADB_DEFAULT_PORT=3306
MARIADB_MAX_CONNECTIONS=300
# MySQL 8.0's (and so Aurora MySQL 3's) default sql_mode.
MARIADB_SQL_MODE=ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION
MARIADBD=
MARIADB_INSTALL_DB=

mariadb_dir() {
  local dir="$TESTBED_HOME/mariadb"
  if [[ -L $dir ]]; then readlink -f -- "$dir"; else printf '%s\n' "$dir"; fi
}

# first_executable NAME...: first NAME found on the PATH or in the sbin dirs.
first_executable() {
  local name dir
  for name in "$@"; do
    if command -v "$name" 2>/dev/null; then return 0; fi
    for dir in /usr/sbin /usr/local/sbin /usr/libexec; do
      if [[ -x $dir/$name ]]; then
        printf '%s\n' "$dir/$name"
        return 0
      fi
    done
  done
  return 1
}

mariadb_client_bin() { first_executable mariadb mysql; }

mariadb_find_bins() {
  MARIADBD="$(first_executable mariadbd mysqld)" &&
    MARIADB_INSTALL_DB="$(first_executable mariadb-install-db mysql_install_db)" &&
    mariadb_client_bin >/dev/null
}

# A package install may have started the stock server (/var/lib/mysql on
# port 3306) where no policy-rc.d prevented it; it would compete for the port.
mariadb_stop_system_server() {
  local pid
  pid="$(read_pid /run/mysqld/mysqld.pid)"
  if pid_matches "$pid" mariadbd || pid_matches "$pid" mysqld; then
    info "stopping the system MariaDB server the package install started (pid $pid)"
    stop_pid "$pid" "system MariaDB"
  fi
}

mariadb_install() {
  if ! mariadb_find_bins; then
    apt_install mariadb-server mariadb-client
    mariadb_stop_system_server
    mariadb_find_bins || die "mariadbd/mariadb-install-db not found after installing mariadb-server"
  fi
  if is_root; then
    ensure_system_user mysql /nonexistent
  fi
}

mariadb_pid() {
  local dir pid
  dir="$(mariadb_dir)"
  pid="$(read_pid "$dir/run/mariadbd.pid")"
  if pid_matches "$pid" "$dir/data"; then printf '%s\n' "$pid"; fi
}

# mariadb_sql PORT SQL: run SQL as outbox over TCP.
mariadb_sql() {
  local client
  client="$(mariadb_client_bin)" || return 1
  timeout 10 "$client" --no-defaults --protocol=TCP -h "$LOOPBACK" -P "$1" \
    -u "$DB_USER" "-p$DB_PASSWORD" --connect-timeout=3 -N -B -e "$2" "$DB_NAME"
}

mariadb_healthy() {
  local out
  out="$(mariadb_sql "$1" 'select 1' 2>/dev/null)" && [[ $out == 1 ]]
}

# mariadb_admin DIR SQL-ON-STDIN: the server's own admin account over the socket.
mariadb_admin() {
  "$(mariadb_client_bin)" --no-defaults --protocol=SOCKET --socket="$1/run/mysqld.sock" \
    -u "$(id -un)" --connect-timeout=3
}

mariadb_socket_ready() {
  "$(mariadb_client_bin)" --no-defaults --protocol=SOCKET --socket="$1/run/mysqld.sock" \
    -u "$(id -un)" --connect-timeout=2 -e 'select 1' >/dev/null 2>&1
}

# mariadb_install_db DATADIR USER: the system tables in DATADIR, owned by USER.
mariadb_install_db() {
  local args=(--no-defaults --datadir="$1" --auth-root-authentication-method=socket --skip-test-db)
  if is_root; then
    args+=(--user="$2")
  else
    args+=(--auth-root-socket-user="$2")
  fi
  (cd / && "$MARIADB_INSTALL_DB" "${args[@]}")
}

# mariadb_server_args DATADIR PORT RUNDIR USER: the server options every
# instance has, into the array MARIADB_ARGS (socket and pid file in RUNDIR).
mariadb_server_args() {
  MARIADB_ARGS=(
    --no-defaults
    --datadir="$1"
    --bind-address="$LOOPBACK"
    --port="$2"
    --socket="$3/mysqld.sock"
    --pid-file="$3/mariadbd.pid"
    --character-set-server=utf8mb4
    --collation-server=utf8mb4_unicode_ci
    --sql-mode="$MARIADB_SQL_MODE"
    --skip-name-resolve
  )
  if is_root; then MARIADB_ARGS+=(--user="$4"); fi
}

# mariadb_outbox_sql: the statements that create the outbox user and database
# (idempotent). The user may grant what it holds (GRANT OPTION): tests log in as
# users holding exactly the grants OutboxGrants makes.
mariadb_outbox_sql() {
  cat <<EOF
CREATE DATABASE IF NOT EXISTS \`$DB_NAME\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER IF NOT EXISTS '$DB_USER'@'%' IDENTIFIED BY '$DB_PASSWORD';
CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
ALTER USER '$DB_USER'@'%' IDENTIFIED BY '$DB_PASSWORD';
ALTER USER '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
GRANT ALL PRIVILEGES ON *.* TO '$DB_USER'@'%' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO '$DB_USER'@'localhost' WITH GRANT OPTION;
EOF
}

mariadb_init_datadir() {
  local dir=$1 user=$2 log="$LOG_DIR/mariadb-setup.log"
  as_user "$user" mkdir -p "$dir/run" "$dir/tmp"
  [[ -d $dir/data/mysql ]] && return 0
  info "initialising a MariaDB datadir in $dir/data"
  mariadb_install_db "$dir/data" "$user" >>"$log" 2>&1 ||
    die_with_log "$log" "mariadb-install-db failed"
}

mariadb_start() {
  local port=$1 user dir pid log="$LOG_DIR/mariadb-setup.log"
  user="$(service_user mysql)"
  dir="$(service_dir mariadb "$user")"
  mariadb_init_datadir "$dir" "$user"
  ln -sfn -- "$dir/mariadbd.log" "$LOG_DIR/mariadb.log"
  mariadb_server_args "$dir/data" "$port" "$dir/run" "$user"
  MARIADB_ARGS+=(
    --log-error="$dir/mariadbd.log"
    --tmpdir="$dir/tmp"
    --max-connections="$MARIADB_MAX_CONNECTIONS"
  )
  pid="$(cd / && start_detached "$LOG_DIR/mariadb-console.log" "$MARIADBD" "${MARIADB_ARGS[@]}")"
  if ! wait_for 60 mariadb_socket_ready "$dir"; then
    cat -- "$LOG_DIR/mariadb-console.log" >>"$log" 2>/dev/null || true
    tail -n 30 -- "$dir/mariadbd.log" >>"$log" 2>/dev/null || true
    pid_alive "$pid" && stop_pid "$pid" MariaDB
    die_with_log "$log" "MariaDB did not start on port $port"
  fi
  mariadb_outbox_sql | mariadb_admin "$dir" >>"$log" 2>&1 ||
    die_with_log "$log" "could not create the outbox user/database"
  wait_for 30 mariadb_healthy "$port" ||
    die_with_log "$log" "MariaDB started but does not accept $DB_USER/$DB_PASSWORD on port $port"
}

# mariadb_refresh PORT: a running test bed server brought up to the user setup
# of this version of the script.
mariadb_refresh() {
  local dir
  dir="$(mariadb_dir)"
  mariadb_outbox_sql | mariadb_admin "$dir" >>"$LOG_DIR/mariadb-setup.log" 2>&1 ||
    die_with_log "$LOG_DIR/mariadb-setup.log" "could not update the outbox user"
}

mariadb_stop() {
  stop_pid "$(mariadb_pid)" MariaDB
}

# mariadb_serve PORT DIR: a private datadir in DIR (created on first use),
# MariaDB in the foreground on 127.0.0.1:PORT, user/password/database
# outbox/outbox/outbox. It stops at SIGTERM (a normal shutdown). Commits are
# written to the OS at once but not flushed to disk: the data survives the
# server being killed, not the machine crashing.
mariadb_serve() {
  local port=$1 dir=$2 user data
  mariadb_find_bins || die "MariaDB is not installed; run scripts/local-aws up"
  user="$(service_user mysql)"
  data="$(private_data_dir "$dir" "$user")"
  if [[ ! -d $data/mysql ]]; then
    mariadb_install_db "$data" "$user" >&2 || die "mariadb-install-db into $data failed"
  fi
  mariadb_outbox_sql >"$data/outbox-init.sql" # run at every start
  [[ $user == "$(id -un)" ]] || chown "$user:" "$data/outbox-init.sql"
  mariadb_server_args "$data" "$port" "$data" "$user"
  MARIADB_ARGS+=(
    --init-file="$data/outbox-init.sql"
    --max-connections=50
    --innodb-buffer-pool-size=64M
    --innodb-flush-log-at-trx-commit=2
    --innodb-doublewrite=0
  )
  cd /
  exec "$MARIADBD" "${MARIADB_ARGS[@]}"
}
