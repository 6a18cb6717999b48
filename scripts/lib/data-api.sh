# shellcheck shell=bash disable=SC2034
# The RDS Data API emulator data-api-local, on 127.0.0.1, against the test
# bed's PostgreSQL database outbox.
#
# Requests: POST http://127.0.0.1:<port>/Execute with a JSON body such as
#   {"resourceArn": "<DATA_API_RESOURCE_ARN>", "secretArn": "<DATA_API_SECRET_ARN>",
#    "database": "outbox", "sql": "select 1"}
# (other routes: /BatchExecute, /BeginTransaction, /CommitTransaction,
# /RollbackTransaction). The emulator ignores resourceArn. secretArn names the
# login, as on the Data API: the test bed's own (DATA_API_SECRET_ARN) is user
# outbox; any other is read from the test bed's LocalStack Secrets Manager
# (username and password), so tests run as users holding only the grants
# OutboxGrants makes. Both ARNs are well-formed so that AWS SDKs accept them.
#
# Known differences from the real Data API (data-api-local 1.0.0-alpha.2), as
# the outbox's tests met them (DataApiExecutorTest pins the open ones, so it
# fails when the emulator changes):
# - longValue parameters are cast to int (int4): 5000000000 fails with
#   'value "5000000000" is out of range for type integer'; send such values as
#   stringValue with a cast in the SQL.
# - a null (isNull) loses its typeHint and goes untyped: where nothing else
#   types it, 'could not determine data type of parameter $n'.
# - timestamp and timestamptz results come back as ISO-8601 text cut to whole
#   seconds ("2026-11-23T14:12:41.000Z"); the Data API returns
#   "YYYY-MM-DD HH:MM:SS[.ffffff]", timestamptz in UTC. The outbox selects its
#   times as UTC text, exact on both.
# - formatRecordsAs is ignored (records only); includeResultMetadata works.
# - only the text before the first ';' of sql is run (the Data API refuses
#   multi-statement SQL).
# - a database error is a 400 BadRequestException "ERROR: <message>\n
#   Position: ..." without the SQLState (the Data API on Aurora Serverless v2
#   and provisioned clusters answers DatabaseErrorException); a request over
#   its size limit is a 500.
# - each transaction holds a PostgreSQL connection of its own, opened at
#   BeginTransaction; a database error inside one leaves it open (PostgreSQL
#   then refuses its statements until it is rolled back).
# - resourceArn is ignored and no IAM is checked (the secret is read, as
#   above); never DatabaseResumingException. A secret it cannot read is a 400
#   SecretsErrorException; a login the database refuses, a 400
#   BadRequestException.
# - BatchExecuteStatement answers updateResults [] and runs the parameter sets
#   concurrently on the transaction's connection.
# The launcher (data-api-server.js) makes it behave as the Data API does in
# these ways (docs/testing.md cites AWS's page for each limit):
# - a row of more than 64,000 bytes as PostgreSQL sends it, and a response of
#   more than 1 MiB of JSON, are refused with a 400 UnsupportedResultException
#   and end their transaction;
# - a statement is cancelled after 45 s (StatementTimeoutException, the
#   transaction ended); with continueAfterTimeout the call times out and the
#   statement runs to its end;
# - a transaction no call uses for 3 minutes, or open for 24 hours, is rolled
#   back; an unknown or ended transaction is a 404 TransactionNotFoundException
#   saying why; a call into a transaction still running one is a 400
#   DatabaseErrorException "Transaction is still running a query";
# - numberOfRecordsUpdated counts the rows of an INSERT or DELETE too
#   (data-api-local reports it for UPDATE only, 0 otherwise);
# - requests up to 4 MiB are accepted (body-parser's default refused anything
#   over 100 KB with "request entity too large").
# The times can be shortened for a test (DATA_API_STATEMENT_TIMEOUT_MS,
# DATA_API_TRANSACTION_IDLE_MS, DATA_API_TRANSACTION_MAX_MS), and so can the
# sizes (DATA_API_MAX_ROW_BYTES, DATA_API_MAX_RESPONSE_BYTES); never raised.

DATA_API_VERSION=1.0.0-alpha.2
# data-api-local asks for pg ^7, which hangs on Node 20; force a current pg.
DATA_API_PG_VERSION=8.16.3
DATA_API_DEFAULT_PORT=8089
DATA_API_RESOURCE_ARN=arn:aws:rds:us-east-1:123456789012:cluster:outbox-testbed
DATA_API_SECRET_ARN=arn:aws:secretsmanager:us-east-1:123456789012:secret:outbox-testbed
DATA_API_DIR="$TESTBED_HOME/data-api"

data_api_package_json() {
  cat <<EOF
{
  "name": "outbox-testbed-data-api",
  "version": "0.0.0",
  "private": true,
  "description": "RDS Data API emulator for the outbox test bed (managed by scripts/local-aws)",
  "dependencies": {
    "data-api-local": "$DATA_API_VERSION"
  },
  "overrides": {
    "pg": "$DATA_API_PG_VERSION"
  }
}
EOF
}

# Version of pg as data-api-local itself resolves it.
data_api_pg_version() {
  (cd "$DATA_API_DIR" && node -e '
    const path = require.resolve("pg/package.json",
      { paths: [require.resolve("data-api-local/package.json")] });
    console.log(require(path).version);' 2>/dev/null)
}

data_api_install() {
  local log="$LOG_DIR/npm.log" stamp="$DATA_API_DIR/.installed-package.json" wanted
  wanted="$(data_api_package_json)"
  if [[ -f $stamp && -d $DATA_API_DIR/node_modules/data-api-local ]] &&
    [[ "$(cat -- "$stamp")" == "$wanted" ]] && command -v node >/dev/null; then
    return 0
  fi
  need_command node nodejs
  need_command npm npm
  need_command curl curl
  info "installing data-api-local@$DATA_API_VERSION (pg $DATA_API_PG_VERSION) into $DATA_API_DIR (log: $log)"
  mkdir -p -- "$DATA_API_DIR"
  printf '%s\n' "$wanted" >"$DATA_API_DIR/package.json"
  (cd "$DATA_API_DIR" && npm install --omit=dev --no-audit --no-fund --loglevel=warn) >>"$log" 2>&1 ||
    die_with_log "$log" "npm install of data-api-local failed"
  if [[ "$(data_api_pg_version)" != "$DATA_API_PG_VERSION" ]]; then
    die_with_log "$log" "data-api-local resolves pg $(data_api_pg_version), not $DATA_API_PG_VERSION"
  fi
  printf '%s\n' "$wanted" >"$stamp"
}

data_api_pid() { service_pid data_api "$DATA_API_DIR/server.js"; }

# data_api_execute PORT SQL: ExecuteStatement as an AWS SDK sends it.
data_api_execute() {
  curl -s --max-time 10 -X POST "http://$LOOPBACK:$1/Execute" \
    -H 'content-type: application/json' \
    -d "{\"resourceArn\":\"$DATA_API_RESOURCE_ARN\",\"secretArn\":\"$DATA_API_SECRET_ARN\",\"database\":\"$DB_NAME\",\"sql\":\"$2\"}"
}

data_api_healthy() {
  local answer
  answer="$(data_api_execute "$1" 'select 1' 2>/dev/null)" &&
    [[ $answer == *'"records":[[{"longValue":1}]]'* ]]
}

# Restart when PostgreSQL or LocalStack moved or the launcher changed since it started.
data_api_stale() {
  [[ "$(cat -- "$RUN_DIR/data_api.pg-port" 2>/dev/null)" != "$(port_get postgres)" ]] ||
    [[ "$(cat -- "$RUN_DIR/data_api.secrets-port" 2>/dev/null)" != "$(port_get localstack)" ]] ||
    ! cmp -s -- "$LIB_DIR/data-api-server.js" "$DATA_API_DIR/server.js"
}

data_api_start() {
  local port=$1 pg_port secrets_port pid log="$LOG_DIR/data-api.log"
  pg_port="$(port_get postgres)"
  [[ -n $pg_port ]] || die "PostgreSQL has no port yet; the Data API emulator needs it"
  secrets_port="$(port_get localstack)"
  [[ -n $secrets_port ]] || die "LocalStack has no port yet; the Data API emulator reads secrets from it"
  cp -- "$LIB_DIR/data-api-server.js" "$DATA_API_DIR/server.js"
  pid="$(cd "$DATA_API_DIR" && start_detached "$log" env \
    DATA_API_HOST="$LOOPBACK" DATA_API_PORT="$port" \
    DATA_API_DB_HOST="$LOOPBACK" DATA_API_DB_PORT="$pg_port" \
    DATA_API_DB_USER="$DB_USER" DATA_API_DB_PASSWORD="$DB_PASSWORD" DATA_API_DB_NAME="$DB_NAME" \
    DATA_API_SECRET_ARN="$DATA_API_SECRET_ARN" \
    DATA_API_SECRETS_ENDPOINT="http://$LOOPBACK:$secrets_port" \
    node "$DATA_API_DIR/server.js")"
  printf '%s\n' "$pid" >"$RUN_DIR/data_api.pid"
  printf '%s\n' "$pg_port" >"$RUN_DIR/data_api.pg-port"
  printf '%s\n' "$secrets_port" >"$RUN_DIR/data_api.secrets-port"
  wait_for 30 data_api_healthy "$port" ||
    die_with_log "$log" "the Data API emulator did not answer ExecuteStatement on port $port"
}

# data_api_serve PORT DIR: a private Data API emulator in the foreground on
# 127.0.0.1:PORT, over the test bed's PostgreSQL and Secrets Manager, running
# this checkout's launcher. AWS's limits apply unless the caller's environment
# shortens them (DATA_API_MAX_ROW_BYTES, DATA_API_MAX_RESPONSE_BYTES,
# DATA_API_STATEMENT_TIMEOUT_MS, DATA_API_TRANSACTION_IDLE_MS,
# DATA_API_TRANSACTION_MAX_MS). DIR is unused: it keeps no state. SIGTERM stops it.
data_api_serve() {
  local port=$1 pg_port secrets_port
  [[ -d $DATA_API_DIR/node_modules/data-api-local ]] ||
    die "data-api-local is not installed in $DATA_API_DIR; run scripts/local-aws up"
  pg_port="$(port_get postgres)"
  [[ -n $pg_port ]] || die "PostgreSQL has no port yet; run scripts/local-aws up"
  secrets_port="$(port_get localstack)"
  [[ -n $secrets_port ]] || die "LocalStack has no port yet; run scripts/local-aws up"
  exec env NODE_PATH="$DATA_API_DIR/node_modules" \
    DATA_API_HOST="$LOOPBACK" DATA_API_PORT="$port" \
    DATA_API_DB_HOST="$LOOPBACK" DATA_API_DB_PORT="$pg_port" \
    DATA_API_DB_USER="$DB_USER" DATA_API_DB_PASSWORD="$DB_PASSWORD" DATA_API_DB_NAME="$DB_NAME" \
    DATA_API_SECRET_ARN="$DATA_API_SECRET_ARN" \
    DATA_API_SECRETS_ENDPOINT="http://$LOOPBACK:$secrets_port" \
    node "$LIB_DIR/data-api-server.js"
}

data_api_stop() {
  stop_pid "$(data_api_pid)" "Data API emulator"
  rm -f -- "$RUN_DIR/data_api.pid"
}
