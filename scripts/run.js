'use strict';
/**
 * `npm start`: builds when needed, finds or starts Postgres and a queue backend, then runs the
 * sandbox gateway, the api and the worker together until Ctrl-C. Plain Node so that nothing needs
 * compiling before it can decide to compile.
 */
const { spawn, spawnSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { join } = require('node:path');
const { createInterface } = require('node:readline');
const {
  checkDatabase,
  ensureDatabase,
  hidePassword,
  needsBuild,
  portAnswers,
} = require('./run-support');

const ROOT = join(__dirname, '..');
const LOCAL_PG_PORT = 5432;
const LOCAL_REDIS_PORT = 6379;
const EMBEDDED_PG_PORT = Number(process.env.EMBEDDED_POSTGRES_PORT || 54320);
const DATABASE_NAME = 'pesapal_checkout';
const STOP_GRACE_MS = 10_000;

const ports = {
  api: Number(process.env.PORT || 3000),
  sandbox: Number(process.env.SANDBOX_PORT || 3001),
  worker: Number(process.env.WORKER_PORT || 3002),
  shop: Number(process.env.EXAMPLE_SHOP_PORT || 3003),
};

/** The built entry file of each app, taken from its start:<app> script so both start the same. */
function entryOf(name) {
  const script = require('../package.json').scripts[`start:${name}`];
  const match = /node\s+(\S+\.js)/.exec(script ?? '');
  if (!match) throw new Error(`package.json script start:${name} does not run "node <file>.js"`);
  return match[1];
}

const APPS = ['sandbox', 'api', 'worker', 'example-shop'].map((name) => ({
  name,
  entry: entryOf(name),
}));

// START_FROM_SOURCE=1: each app straight from its TypeScript through swc, with no build first.
const FROM_SOURCE = process.env.START_FROM_SOURCE === '1';

function argumentsOf(app) {
  return FROM_SOURCE
    ? ['-r', '@swc-node/register', join('apps', app.name, 'src', 'main.ts')]
    : [join(ROOT, app.entry)];
}

const children = new Map();
let embeddedPostgres = null;
let shuttingDown = false;

/** Every line in the terminal starts with who wrote it, in one column. */
function prefixOf(label) {
  return `[${label}]${' '.repeat(8 - label.length)} `;
}

function say(line) {
  process.stdout.write(`${prefixOf('run')}${line}\n`);
}

// A closed stdout (e.g. piped into `head`) must not take the supervisor down with EPIPE.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);

function buildIfNeeded() {
  if (FROM_SOURCE) return;
  const reason = needsBuild(
    ROOT,
    APPS.map((app) => join(ROOT, app.entry)),
  );
  if (!reason) return;
  say(`building (${reason}): npm run build`);
  const result = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm run build failed');
}

function startEmbeddedPostgres() {
  return new Promise((resolve, reject) => {
    const helper = spawn(process.execPath, [join(__dirname, 'embedded-postgres-server.js')], {
      cwd: ROOT,
      env: {
        ...process.env,
        EMBEDDED_PG_DIR: join(ROOT, '.data', 'postgres'),
        EMBEDDED_PG_PORT: String(EMBEDDED_PG_PORT),
        EMBEDDED_PG_PERSISTENT: '1',
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      detached: true,
    });
    embeddedPostgres = helper;
    helper.once('message', (message) => {
      if (message && message.ready) resolve(message.url);
      else reject(new Error(message && message.error ? message.error : 'embedded Postgres failed'));
    });
    helper.once('exit', (code) => {
      if (embeddedPostgres === helper) embeddedPostgres = null;
      reject(new Error(`embedded Postgres exited (code ${code})`));
      if (!shuttingDown && children.size > 0) {
        say('embedded Postgres stopped unexpectedly; stopping everything');
        void shutdown(1);
      }
    });
  });
}

/** DATABASE_URL if set; else the local server on 5432; else embedded PostgreSQL under .data/. */
async function resolvePostgres() {
  if (process.env.DATABASE_URL) {
    return { url: process.env.DATABASE_URL, how: 'DATABASE_URL as configured' };
  }
  if (await portAnswers(LOCAL_PG_PORT)) {
    const url = `postgres://postgres@127.0.0.1:${LOCAL_PG_PORT}/${DATABASE_NAME}`;
    await ensureDatabase(url);
    return { url, how: `the local server on 127.0.0.1:${LOCAL_PG_PORT}` };
  }
  say(
    `no Postgres answers on 127.0.0.1:${LOCAL_PG_PORT}: starting embedded PostgreSQL on port ${EMBEDDED_PG_PORT}`,
  );
  const serverUrl = await startEmbeddedPostgres();
  const url = `${serverUrl}/${DATABASE_NAME}`;
  await ensureDatabase(url);
  return { url, how: `embedded PostgreSQL (data in .data/postgres)` };
}

/**
 * REDIS_CLUSTER_NODES or REDIS_URL if set; else the local Redis on 6379; else BullMQ's
 * PostgreSQL backend.
 */
async function resolveQueues() {
  if (process.env.QUEUE_BACKEND === 'postgres') {
    return { env: { QUEUE_BACKEND: 'postgres' }, how: 'BullMQ PostgreSQL backend (QUEUE_BACKEND)' };
  }
  if (process.env.REDIS_CLUSTER_NODES) {
    return {
      env: { QUEUE_BACKEND: 'redis', REDIS_CLUSTER_NODES: process.env.REDIS_CLUSTER_NODES },
      how: `the Redis Cluster at ${hidePassword(process.env.REDIS_CLUSTER_NODES)} (REDIS_CLUSTER_NODES)`,
    };
  }
  if (process.env.REDIS_URL) {
    return {
      env: { QUEUE_BACKEND: 'redis', REDIS_URL: process.env.REDIS_URL },
      how: `Redis at ${hidePassword(process.env.REDIS_URL)} (REDIS_URL)`,
    };
  }
  if (await portAnswers(LOCAL_REDIS_PORT)) {
    const url = `redis://127.0.0.1:${LOCAL_REDIS_PORT}`;
    return { env: { QUEUE_BACKEND: 'redis', REDIS_URL: url }, how: `Redis at ${url}` };
  }
  return {
    env: { QUEUE_BACKEND: 'postgres' },
    how: `BullMQ PostgreSQL backend in the same database (no Redis on 127.0.0.1:${LOCAL_REDIS_PORT})`,
  };
}

function pipeWithPrefix(stream, prefix, target) {
  createInterface({ input: stream }).on('line', (line) => target.write(`${prefix}${line}\n`));
}

function startApp(app, env) {
  const child = spawn(process.execPath, argumentsOf(app), {
    cwd: ROOT,
    env: app.name === 'example-shop' ? exampleShopEnv(env) : env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Own process group: Ctrl-C reaches only the supervisor, which stops the apps in order.
    detached: true,
  });
  const label = app.name === 'example-shop' ? 'shop' : app.name;
  const prefix = prefixOf(label);
  pipeWithPrefix(child.stdout, prefix, process.stdout);
  pipeWithPrefix(child.stderr, prefix, process.stderr);
  children.set(app.name, child);
  child.on('exit', (code, signal) => {
    children.delete(app.name);
    if (shuttingDown) return;
    say(`${app.name} exited (${signal ?? `code ${code}`}); stopping everything`);
    void shutdown(1);
  });
}

function exited(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

async function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited(child);
  clearTimeout(timer);
}

async function shutdown(code) {
  if (shuttingDown) return;
  shuttingDown = true;
  say('stopping sandbox, api, worker and example shop');
  await Promise.all([...children.values()].map(stopProcess));
  if (embeddedPostgres) {
    say('stopping embedded PostgreSQL');
    await stopProcess(embeddedPostgres);
  }
  say('stopped');
  process.exit(code);
}

async function answersOk(url) {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return response.status === 200;
  } catch {
    return false;
  }
}

/**
 * Unless a webhook endpoint is configured, the service posts its merchant webhooks to the example
 * shop, signed with a secret made for this run.
 */
function exampleShopWebhook() {
  if (process.env.ORDER_WEBHOOK_URL || process.env.NODE_ENV === 'production') return {};
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  return {
    ORDER_WEBHOOK_URL: `http://127.0.0.1:${ports.shop}/webhooks/payments`,
    ORDER_WEBHOOK_SECRET: secret,
    // The example shop listens on loopback, which webhook endpoints may not be otherwise.
    WEBHOOK_ALLOW_PRIVATE: process.env.WEBHOOK_ALLOW_PRIVATE || 'true',
    EXAMPLE_SHOP_WEBHOOK_SECRET: secret,
  };
}

/**
 * The example shop's own environment, not the service's (no admin keys, no database): it calls
 * the api with the first shop key, as a shop's server would.
 */
function exampleShopEnv(env) {
  const firstKey = (env.SHOP_API_KEYS || 'shop_dev_key').split(',')[0].trim();
  const separator = firstKey.indexOf(':');
  return {
    PATH: env.PATH,
    HOME: env.HOME,
    NODE_ENV: env.NODE_ENV,
    PAYMENTS_API_URL: `http://127.0.0.1:${ports.api}`,
    SHOP_API_KEY: separator > 0 ? firstKey.slice(separator + 1) : firstKey,
    EXAMPLE_SHOP_PORT: String(ports.shop),
    EXAMPLE_SHOP_WEBHOOK_SECRET: env.EXAMPLE_SHOP_WEBHOOK_SECRET || '',
    EXAMPLE_SHOP_URL: env.EXAMPLE_SHOP_URL,
    EXAMPLE_SHOP_WAIT_MS: env.EXAMPLE_SHOP_WAIT_MS,
    // Its lines like the service's: one format in the terminal.
    LOG_LEVEL: env.LOG_LEVEL,
    LOG_FORMAT: env.LOG_FORMAT,
    LOG_FILE: env.LOG_FILE,
  };
}

async function waitUntilReady(timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  const checks = {
    api: () => answersOk(`http://127.0.0.1:${ports.api}/health/ready`),
    worker: () => answersOk(`http://127.0.0.1:${ports.worker}/health/ready`),
    sandbox: () => portAnswers(ports.sandbox),
    'example shop': () => portAnswers(ports.shop),
  };
  const pending = new Set(Object.keys(checks));
  while (pending.size > 0 && Date.now() < deadline && !shuttingDown) {
    for (const name of [...pending]) if (await checks[name]()) pending.delete(name);
    if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return [...pending];
}

function printWhereEachListens() {
  const lines = [
    '',
    'pesapal-checkout is running:',
    `  api      http://127.0.0.1:${ports.api}   (API docs http://127.0.0.1:${ports.api}/docs, console http://127.0.0.1:${ports.api}/admin)`,
    `  sandbox  http://127.0.0.1:${ports.sandbox}/pesapalv3/api   (the payment gateway stand-in)`,
    `  worker   http://127.0.0.1:${ports.worker}/health/ready   (health only)`,
    `  shop     http://127.0.0.1:${ports.shop}   (the example shop: buy something)`,
    'Ctrl-C stops everything.',
    '',
  ];
  for (const line of lines) say(line);
}

async function main() {
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  // A shell between npm and us may die on SIGTERM without passing it on: treat that as a stop.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void shutdown(0);
  }, 1000).unref();

  buildIfNeeded();
  const postgres = await resolvePostgres();
  await checkDatabase(postgres.url);
  const queues = await resolveQueues();
  say(`postgres: ${hidePassword(postgres.url)} via ${postgres.how}`);
  say(`queues:   ${queues.how}`);
  say(`api:      database ${hidePassword(postgres.url)}, queues on ${queues.env.QUEUE_BACKEND}`);
  say(`worker:   database ${hidePassword(postgres.url)}, queues on ${queues.env.QUEUE_BACKEND}`);
  say('sandbox:  in memory (no database, no queues), test controls on (SANDBOX_CONTROL=1)');

  const env = {
    ...process.env,
    DATABASE_URL: postgres.url,
    ...queues.env,
    SANDBOX_CONTROL: process.env.SANDBOX_CONTROL || '1',
    // Log lines for a person at a terminal, unless asked otherwise (production logs stay JSON).
    LOG_FORMAT:
      process.env.LOG_FORMAT || (process.env.NODE_ENV === 'production' ? 'json' : 'pretty'),
    // The api follows the sandbox if its port moves, unless a real gateway is configured.
    PESAPAL_BASE_URL:
      process.env.PESAPAL_BASE_URL || `http://127.0.0.1:${ports.sandbox}/pesapalv3/api`,
    // The gateway notifies the api where it listens, if its port moves too.
    PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL || `http://127.0.0.1:${ports.api}`,
    ...exampleShopWebhook(),
  };
  for (const app of APPS) {
    if (shuttingDown) return;
    startApp(app, env);
  }
  const notReady = await waitUntilReady(120_000);
  if (shuttingDown) return;
  if (notReady.length > 0) say(`warning: not ready after 120 s: ${notReady.join(', ')}`);
  printWhereEachListens();
}

main().catch((error) => {
  process.stderr.write(
    `${prefixOf('run')}${error instanceof Error ? error.message : String(error)}\n`,
  );
  void shutdown(1);
});
