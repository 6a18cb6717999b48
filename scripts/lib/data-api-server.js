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
const { Server } = require('data-api-local');

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

// The emulator parses bodies with body-parser's json(), which only reads
// requests sent as application/json. AWS SDKs may send REST-JSON bodies as
// application/x-amz-json-1.x or without a content type, so normalise it first.
const httpServer = http.createServer((req, res) => {
  const contentType = req.headers['content-type'];
  if (!contentType || /json/i.test(contentType)) {
    req.headers['content-type'] = 'application/json';
  }
  emulator.app(req, res);
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
