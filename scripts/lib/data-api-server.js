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

const host = setting('DATA_API_HOST', '127.0.0.1');
const port = Number(setting('DATA_API_PORT', '8089'));

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
    client = await new PostgresClient({ ...config, ...requestLogin.getStore(), database }).connect();
  } catch (error) {
    // A login the database refuses is the caller's to fix: a BadRequestException, as the Data
    // API reports it (not a 500, which callers retry).
    throw createError(400, error.message);
  }
  if (transactionId !== undefined) {
    this.pool[transactionId] = client;
  }
  return client;
};

// numberOfRecordsUpdated as the real Data API reports it: the rows an INSERT,
// UPDATE or DELETE changed. data-api-local reports it for UPDATE only (0 for
// INSERT and DELETE); everything else here is its own executeStatement.
PostgresClient.prototype.executeStatement = async function executeStatement({
  sql,
  parameters,
  includeResultMetadata = false,
}) {
  const { query, values } = transformQuery(sql, parameters);
  const result = await this.query({ query, values });
  return {
    columnMetadata: includeResultMetadata ? await this.buildColumnMetadata(result.fields) : undefined,
    records: transformResult(result),
    numberOfRecordsUpdated: ['INSERT', 'UPDATE', 'DELETE'].includes(result.command) ? result.rowCount : 0,
  };
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
    // A statement of a transaction runs on the transaction's connection: no login to look up.
    const opensConnection = !(req.body && req.body.transactionId);
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
