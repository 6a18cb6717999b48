'use strict';
// Starts the data-api-local RDS Data API emulator (PostgreSQL engine) for the
// outbox test bed. data-api-local is a library without a CLI: it is configured
// only through the options of `new Server({ server, database })`, so this file
// maps environment variables onto them. scripts/local-aws copies it next to
// the node_modules it installs and starts it from there.
//
//   DATA_API_HOST / DATA_API_PORT          listen address (127.0.0.1 / 8089)
//   DATA_API_DB_HOST / DATA_API_DB_PORT    PostgreSQL (127.0.0.1 / 5432)
//   DATA_API_DB_USER / DATA_API_DB_PASSWORD the login of the test bed's own secret
//   DATA_API_DB_NAME                       database used when a request names none
//   DATA_API_SECRET_ARN                    the test bed's own secret (never looked up)
//   DATA_API_SECRETS_ENDPOINT              Secrets Manager (the test bed's LocalStack)
//
// AWS's limits, on unless a test asks for smaller ones (docs/testing.md cites each page):
//   DATA_API_MAX_ROW_BYTES         a row of a result, as the database sends it (64000)
//   DATA_API_MAX_RESPONSE_BYTES    an ExecuteStatement response body (1048576)
//   DATA_API_STATEMENT_TIMEOUT_MS  a call, unless continueAfterTimeout (45000)
//   DATA_API_TRANSACTION_IDLE_MS   a transaction no call uses (180000)
//   DATA_API_TRANSACTION_MAX_MS    a transaction in all (86400000)
//
// Routes (REST-JSON, as the AWS SDKs call them): POST /Execute (ExecuteStatement),
// /BatchExecute, /BeginTransaction, /CommitTransaction, /RollbackTransaction,
// /ExecuteSql. resourceArn is accepted but ignored. A request that opens a connection
// logs in as the Data API does: with the username and password of the secret its
// secretArn names, read from DATA_API_SECRETS_ENDPOINT (the test bed's own secret
// stands for DATA_API_DB_USER/DATA_API_DB_PASSWORD); the statements of a transaction
// run on the connection BeginTransaction opened.

const http = require('http');
const { AsyncLocalStorage } = require('async_hooks');
// body-parser as data-api-local itself resolves it.
const bodyParser = require(require.resolve('body-parser', { paths: [require.resolve('data-api-local')] }));
const createError = require(require.resolve('http-errors', { paths: [require.resolve('data-api-local')] }));
const { Server } = require('data-api-local');
const { PostgresClient } = require('data-api-local/lib/PostgresClient');
const { transformQuery } = require('data-api-local/lib/utils/transformQuery');
const { transformResult } = require('data-api-local/lib/utils/transformResult');

function setting(name, fallback) {
  const value = process.env[name];
  return value === undefined || value === '' ? fallback : value;
}

// A limit of AWS's, which a test may shorten but never raise.
function limit(name, aws) {
  const value = Number(setting(name, String(aws)));
  if (!Number.isSafeInteger(value) || value <= 0 || value > aws) {
    console.error(`${name}: '${process.env[name]}' is not a whole number from 1 to AWS's ${aws}`);
    process.exit(2);
  }
  return value;
}

const host = setting('DATA_API_HOST', '127.0.0.1');
const port = Number(setting('DATA_API_PORT', '8089'));

// "The Data API size limit is 64 KB per row in the result set returned by the database": AWS
// does not say whether a KB is 1,000 or 1,024 bytes, so the test bed takes the smaller reading,
// and counts a row as PostgreSQL sends it (each value's text and its 4-byte length).
const MAX_ROW_BYTES = limit('DATA_API_MAX_ROW_BYTES', 64000);
// "The response size limit is 1 MiB": measured here on the JSON the call answers, which is never
// smaller than the data the database returned.
const MAX_RESPONSE_BYTES = limit('DATA_API_MAX_RESPONSE_BYTES', 1024 * 1024);
const STATEMENT_TIMEOUT_MS = limit('DATA_API_STATEMENT_TIMEOUT_MS', 45 * 1000);
const TRANSACTION_IDLE_MS = limit('DATA_API_TRANSACTION_IDLE_MS', 3 * 60 * 1000);
const TRANSACTION_MAX_MS = limit('DATA_API_TRANSACTION_MAX_MS', 24 * 60 * 60 * 1000);

// An error answered as the Data API answers it: its type in x-amzn-ErrorType, its message in the
// body. The types and statuses are the service model's (botocore's rds-data service-2.json).
class AwsError extends Error {
  constructor(type, status, message) {
    super(message);
    this.awsType = type;
    this.status = status;
  }
}
const transactionNotFound = (id, why) =>
  new AwsError('TransactionNotFoundException', 404, `Transaction ${id} isn't found${why ? `: ${why}` : ''}`);
// Without continueAfterTimeout "the statement stops running when the call times out" and, as after
// any refused result, the transaction ends ("Transaction has been aborted due to an error from a
// previous call", Troubleshooting Amazon RDS Data API); with it, the statement and its transaction
// go on.
function statementTimeout(runsOn) {
  const error = new AwsError('StatementTimeoutException', 400, runsOn
    ? `The call timed out after ${STATEMENT_TIMEOUT_MS} ms; the statement runs on (continueAfterTimeout)`
    : `The statement ran longer than ${STATEMENT_TIMEOUT_MS} ms and was cancelled`);
  error.abortsTransaction = !runsOn;
  return error;
}
function unsupportedResult(message) {
  const error = new AwsError('UnsupportedResultException', 400, message);
  error.abortsTransaction = true;
  return error;
}

Server.prototype.handleError = function handleError(error, _req, res, next) {
  if (res.headersSent) {
    next(error);
    return;
  }
  let type;
  let status;
  if (error instanceof AwsError) {
    ({ awsType: type, status } = error);
  } else {
    status = error instanceof createError.HttpError ? error.statusCode : 500;
    type = { 400: 'BadRequestException', 403: 'ForbiddenException', 404: 'NotFoundException',
      503: 'ServiceUnavailableError' }[status] || 'InternalServerErrorException';
  }
  res.abortsTransaction = error.abortsTransaction === true;
  res.setHeader('x-amzn-ErrorType', `${type}:http://internal.amazon.com/coral/com.amazon.rdsdataservice/`);
  res.status(status).json({ message: error.message });
};

const emulator = new Server({
  logger: (message) => console.log(`${new Date().toISOString()} ${message}`),
  server: { hostname: host, port },
  database: {
    engine: 'postgresql',
    host: setting('DATA_API_DB_HOST', '127.0.0.1'),
    port: Number(setting('DATA_API_DB_PORT', '5432')),
    user: setting('DATA_API_DB_USER', 'outbox'),
    password: setting('DATA_API_DB_PASSWORD', 'outbox'),
    database: setting('DATA_API_DB_NAME', 'outbox'),
  },
});

// Logins by secret. The login of the request being served travels with it (AsyncLocalStorage)
// to createClient, which data-api-local calls without the request.
const ownSecretArn = setting(
  'DATA_API_SECRET_ARN', 'arn:aws:secretsmanager:us-east-1:123456789012:secret:outbox-testbed');
const secretsEndpoint = setting('DATA_API_SECRETS_ENDPOINT', '');
const requestLogin = new AsyncLocalStorage();
const SECRET_CACHE_MS = 5000;
const secretCache = new Map();

class SecretsError extends Error {}

// GetSecretValue over Secrets Manager's JSON protocol. LocalStack reads the region from the
// credential scope and checks no signature.
function getSecretValue(secretArn) {
  const region = secretArn.split(':')[3] || 'us-east-1';
  const body = JSON.stringify({ SecretId: secretArn });
  const url = new URL(secretsEndpoint);
  return new Promise((resolve, reject) => {
    const call = http.request({
      hostname: url.hostname,
      port: url.port,
      path: '/',
      method: 'POST',
      timeout: 10000,
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'secretsmanager.GetSecretValue',
        authorization: `AWS4-HMAC-SHA256 Credential=test/20240101/${region}/secretsmanager/aws4_request, SignedHeaders=host, Signature=0`,
        'content-length': Buffer.byteLength(body),
      },
    }, (answer) => {
      let text = '';
      answer.setEncoding('utf8');
      answer.on('data', (chunk) => { text += chunk; });
      answer.on('end', () => {
        let parsed;
        try {
          parsed = JSON.parse(text);
        } catch (error) {
          reject(new SecretsError(`Secrets Manager answered ${answer.statusCode} with no JSON for ${secretArn}`));
          return;
        }
        if (answer.statusCode !== 200) {
          reject(new SecretsError(`Secrets Manager refused ${secretArn}: ${[parsed.__type, parsed.message || parsed.Message].filter(Boolean).join(': ') || answer.statusCode}`));
          return;
        }
        resolve(parsed.SecretString);
      });
    });
    call.on('timeout', () => call.destroy(new SecretsError(`Secrets Manager did not answer for ${secretArn}`)));
    call.on('error', (error) => reject(error instanceof SecretsError ? error
      : new SecretsError(`Secrets Manager at ${secretsEndpoint}: ${error.message}`)));
    call.end(body);
  });
}

// The login of secretArn: undefined for the test bed's own (the configured user), else the
// secret's username and password, cached for a few seconds as the Data API caches them.
async function loginOf(secretArn) {
  if (!secretArn || secretArn === ownSecretArn) {
    return undefined;
  }
  if (!secretsEndpoint) {
    throw new SecretsError(`no Secrets Manager to read ${secretArn} from (DATA_API_SECRETS_ENDPOINT is not set)`);
  }
  const cached = secretCache.get(secretArn);
  if (cached && Date.now() - cached.at < SECRET_CACHE_MS) {
    return cached.login;
  }
  let secret;
  try {
    secret = JSON.parse(await getSecretValue(secretArn));
  } catch (error) {
    throw error instanceof SecretsError ? error
      : new SecretsError(`the secret ${secretArn} is not JSON with username and password`);
  }
  if (!secret || typeof secret.username !== 'string' || typeof secret.password !== 'string') {
    throw new SecretsError(`the secret ${secretArn} has no username and password`);
  }
  const login = { user: secret.username, password: secret.password };
  secretCache.set(secretArn, { login, at: Date.now() });
  return login;
}

emulator.createClient = async function createClient({ database = this.dbConfig.database, transactionId }) {
  const { engine, ...config } = this.dbConfig;
  let client;
  try {
    // PostgreSQL cancels a statement at the Data API's timeout (SQLSTATE 57014).
    client = await new PostgresClient({
      ...config, ...requestLogin.getStore(), database, statement_timeout: STATEMENT_TIMEOUT_MS,
    }).connect();
  } catch (error) {
    // A login the database refuses is the caller's to fix: a BadRequestException, as the Data
    // API reports it (not a 500, which callers retry).
    throw createError(400, error.message);
  }
  if (transactionId !== undefined) {
    this.pool[transactionId] = client;
    transactions.set(transactionId, new Transaction(transactionId, client));
  }
  return client;
};

// The transactions BeginTransaction opened, with their clocks: one no call uses for
// TRANSACTION_IDLE_MS, or open for TRANSACTION_MAX_MS, is rolled back and forgotten ("A transaction
// times out if no calls use its transaction ID in three minutes ... A transaction can run for a
// maximum of 24 hours": BeginTransaction, RDS Data API Reference).
const transactions = new Map();
// Why an id is no longer known, for the TransactionNotFoundException of a later call (bounded).
const ended = new Map();
const ENDED_KEPT = 10000;

class Transaction {
  constructor(id, client) {
    this.id = id;
    this.client = client;
    this.calls = 0;
    this.lifetime = setTimeout(() => this.end('Transaction may be expired (it ran for the'
      + ` longest a transaction may, ${TRANSACTION_MAX_MS} ms)`), TRANSACTION_MAX_MS);
    this.lifetime.unref();
    this.idle();
  }

  idle() {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.end(`Transaction may be expired (no call used it for`
      + ` ${TRANSACTION_IDLE_MS} ms)`), TRANSACTION_IDLE_MS);
    this.idleTimer.unref();
  }

  // A call starts: false when another call of this transaction still runs (the Data API answers
  // "Transaction is still running a query" at once).
  enter() {
    if (this.calls > 0 || this.client.running) {
      return false;
    }
    this.calls += 1;
    clearTimeout(this.idleTimer);
    return true;
  }

  leave() {
    this.calls -= 1;
    if (transactions.get(this.id) === this) {
      this.idle();
    }
  }

  // Rolled back and forgotten; later calls are told why.
  end(why) {
    if (transactions.get(this.id) !== this) {
      return;
    }
    transactions.delete(this.id);
    clearTimeout(this.idleTimer);
    clearTimeout(this.lifetime);
    forget(this.id, why);
    if (emulator.pool[this.id] === this.client) {
      delete emulator.pool[this.id];
    }
    console.log(`${new Date().toISOString()} [transaction] ${this.id} rolled back: ${why}`);
    const done = () => this.client.client.query('ROLLBACK').catch(() => {})
      .then(() => this.client.disconnect()).catch(() => {});
    (this.client.running || Promise.resolve()).then(done, done);
  }
}

function forget(id, why) {
  ended.set(id, why);
  if (ended.size > ENDED_KEPT) {
    ended.delete(ended.keys().next().value);
  }
}

// A commit or rollback ends the transaction for good (data-api-local closes its connection either
// way): its clocks stop, and later calls are told why.
function settle(id, why) {
  const t = transactions.get(id);
  if (t) {
    transactions.delete(id);
    clearTimeout(t.idleTimer);
    clearTimeout(t.lifetime);
    forget(id, why);
  }
}

emulator.getClient = async function getClient({ database = this.dbConfig.database, transactionId }) {
  if (transactionId === undefined) {
    return this.createClient({ database });
  }
  if (!transactions.has(transactionId) || !(transactionId in this.pool)) {
    throw transactionNotFound(transactionId, ended.get(transactionId));
  }
  return this.pool[transactionId];
};

// Each row's size as PostgreSQL sends it: the bytes of every value's text and a 4-byte length per
// column (DataRow), counted as the driver reads the row.
const PgResult = require(require.resolve('pg/lib/result', { paths: [require.resolve('data-api-local')] }));
const parseRowAsArray = PgResult.prototype._parseRowAsArray;
PgResult.prototype._parseRowAsArray = function measuredRow(rowData) {
  let bytes = 4 * rowData.length;
  for (const raw of rowData) {
    if (raw !== null) {
      bytes += typeof raw === 'string' ? Buffer.byteLength(raw, 'utf8') : raw.length;
    }
  }
  if (!(this.largestRowBytes >= bytes)) {
    this.largestRowBytes = bytes;
  }
  return parseRowAsArray.call(this, rowData);
};

// Database errors as data-api-local reports them, but for PostgreSQL's cancelling a statement at
// the statement timeout, which the Data API answers with StatementTimeoutException.
PostgresClient.prototype.query = async function query({ query: text, values }) {
  try {
    return await this.client.query({ text, values, rowMode: 'array' });
  } catch (error) {
    if (error.code === '57014') {
      throw statementTimeout(false);
    }
    throw createError(400, `${error.severity}: ${error.message}\n  Position: ${error.position}`);
  }
};

// A client whose statement runs on after its call timed out (continueAfterTimeout) is closed once
// that statement ends, so that it completes (and, outside a transaction, commits).
PostgresClient.prototype.disconnect = async function disconnect() {
  if (this.running) {
    this.running.then(() => this.client.end(), () => this.client.end()).catch(() => {});
    return undefined;
  }
  return this.client.end();
};

// ExecuteStatement as the Data API runs it: numberOfRecordsUpdated counts the rows an INSERT,
// UPDATE or DELETE changed (data-api-local reports it for UPDATE only, 0 otherwise); a row over
// MAX_ROW_BYTES or a response over MAX_RESPONSE_BYTES is refused with UnsupportedResultException
// ("The size was too large"); continueAfterTimeout answers StatementTimeoutException at the
// statement timeout and lets the statement run to its end.
PostgresClient.prototype.executeStatement = async function executeStatement({
  sql,
  parameters,
  includeResultMetadata = false,
  continueAfterTimeout = false,
}) {
  const { query, values } = transformQuery(sql, parameters);
  let result;
  if (continueAfterTimeout) {
    result = await this.runOn(query, values);
  } else {
    result = await this.query({ query, values });
  }
  if (result.largestRowBytes > MAX_ROW_BYTES) {
    throw unsupportedResult(`The result exceeds the size limit: the database returned a row of`
      + ` ${result.largestRowBytes} bytes, and the Data API allows ${MAX_ROW_BYTES} bytes a row`
      + ` (Packet for query is too large)`);
  }
  const response = {
    columnMetadata: includeResultMetadata ? await this.buildColumnMetadata(result.fields) : undefined,
    records: transformResult(result),
    numberOfRecordsUpdated: ['INSERT', 'UPDATE', 'DELETE'].includes(result.command) ? result.rowCount : 0,
  };
  const bytes = Buffer.byteLength(JSON.stringify(response), 'utf8');
  if (bytes > MAX_RESPONSE_BYTES) {
    throw unsupportedResult(`The result exceeds the size limit: the response would hold ${bytes}`
      + ` bytes, and the Data API answers at most ${MAX_RESPONSE_BYTES} (Database response exceeded`
      + ` size limit)`);
  }
  return response;
};

// The statement without the statement timeout; its call answers StatementTimeoutException when
// the timeout passes, while the statement runs on (this.running until it ends).
PostgresClient.prototype.runOn = async function runOn(query, values) {
  await this.query({ query: 'SET statement_timeout = 0' });
  const statement = this.query({ query, values });
  this.running = statement.then(() => {}, () => {}).then(async () => {
    this.running = undefined;
    await this.client.query(`SET statement_timeout = ${STATEMENT_TIMEOUT_MS}`).catch(() => {});
  });
  let timer;
  const timeout = new Promise((_resolve, reject) => {
    timer = setTimeout(() => reject(statementTimeout(true)), STATEMENT_TIMEOUT_MS);
  });
  try {
    return await Promise.race([statement, timeout]);
  } finally {
    clearTimeout(timer);
  }
};

// The emulator parses bodies with body-parser's json(), which only reads
// requests sent as application/json. AWS SDKs may send REST-JSON bodies as
// application/x-amz-json-1.x or without a content type, so normalise it first.
// Requests up to the real Data API's 4 MiB, not body-parser's default 100 KB: parsed here, the
// emulator's own parser then leaves the body alone.
const parseUpTo4MiB = bodyParser.json({ limit: 4 * 1024 * 1024 });

const httpServer = http.createServer((req, res) => {
  const contentType = req.headers['content-type'];
  if (!contentType || /json/i.test(contentType)) {
    req.headers['content-type'] = 'application/json';
  }
  parseUpTo4MiB(req, res, (error) => {
    if (error) {
      res.statusCode = error.status || 400;
      res.setHeader('x-amzn-ErrorType', 'BadRequestException');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ message: error.message }));
      return;
    }
    const transactionId = req.body && req.body.transactionId;
    const transaction = typeof transactionId === 'string' ? transactions.get(transactionId) : undefined;
    if (transaction) {
      if (!transaction.enter()) {
        res.statusCode = 400;
        res.setHeader('x-amzn-ErrorType', 'DatabaseErrorException');
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ message: 'Transaction is still running a query' }));
        return;
      }
      res.on('close', () => {
        transaction.leave();
        if (res.abortsTransaction) {
          transaction.end('Transaction has been aborted due to an error from a previous call');
        } else if (/^\/(Commit|Rollback)Transaction/.test(req.url)) {
          settle(transactionId, 'One previous call resulted in a termination of your transaction');
        }
      });
    }
    // A statement of a transaction runs on the transaction's connection: no login to look up.
    const opensConnection = !transactionId;
    (opensConnection ? loginOf(req.body && req.body.secretArn) : Promise.resolve(undefined)).then(
      (login) => requestLogin.run(login, () => emulator.app(req, res)),
      (error) => {
        res.statusCode = 400;
        res.setHeader('x-amzn-ErrorType', 'SecretsErrorException');
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ message: error.message }));
      });
  });
});

// A pooled transaction connection that PostgreSQL drops emits an 'error' the
// emulator does not handle; keep serving the other requests.
process.on('uncaughtException', (error) => {
  console.error(`${new Date().toISOString()} uncaught error: ${error && error.stack ? error.stack : error}`);
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    httpServer.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  });
}

httpServer.listen(port, host, () => {
  console.log(`${new Date().toISOString()} data-api-local listening on http://${host}:${port}`);
});
