'use strict';
// Starts the data-api-local RDS Data API emulator (PostgreSQL engine) for the
// outbox test bed. data-api-local is a library without a CLI: it is configured
// only through the options of `new Server({ server, database })`, so this file
// maps environment variables onto them. scripts/local-aws copies it next to
// the node_modules it installs and starts it from there.
//
//   DATA_API_HOST / DATA_API_PORT          listen address (127.0.0.1 / 8089)
//   DATA_API_DB_HOST / DATA_API_DB_PORT    PostgreSQL (127.0.0.1 / 5432)
//   DATA_API_DB_USER / DATA_API_DB_PASSWORD
//   DATA_API_DB_NAME                       database used when a request names none
//
// Routes (REST-JSON, as the AWS SDKs call them): POST /Execute (ExecuteStatement),
// /BatchExecute, /BeginTransaction, /CommitTransaction, /RollbackTransaction,
// /ExecuteSql. resourceArn and secretArn are accepted but ignored.

const http = require('http');
// body-parser as data-api-local itself resolves it.
const bodyParser = require(require.resolve('body-parser', { paths: [require.resolve('data-api-local')] }));
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
    emulator.app(req, res);
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
